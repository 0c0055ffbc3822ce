import type { Random } from "@gw/random";
import type { Role } from "./draft.ts";
import type { Operation } from "./openapi.ts";
import { PUBLIC_URLS } from "./pools.ts";
import { type Hint, plausible } from "./values.ts";
import { areaOf, mediaModels, ownerOf, tasksOf, type World } from "./world.ts";

const PROMPTS = ["a red fox in the snow", "hello", "Name three colours.", "a calm sea at dawn"];

/** Fields whose names say what a client puts there, beyond what their schema says. */
export function hintFor(op: Operation, world: World, role: Role): Hint {
  const area = areaOf(op);
  const owner = ownerOf(role) ?? "a";
  const own = tasksOf(world, owner);
  const { fixture, catalog } = world;
  return (name, _schema, random) => {
    switch (name) {
      case "model":
        if (area === "text") return random.pick(catalog.text);
        if (area === "admin") return undefined;
        return random.pick(catalog.media.map((model) => model.id));
      case "prompt":
        return random.pick(PROMPTS);
      case "image":
      case "mask":
      case "image_url":
      case "webhook_url":
        return random.pick(PUBLIC_URLS);
      case "image_urls":
        return [random.pick(PUBLIC_URLS)];
      case "ids":
        return [random.pick([...own.image, ...own.audio])];
      case "audioId":
        return random.pick(own.tracks);
      case "user_id":
        return fixture.victim.userId;
      case "allowed_ips":
        return random.pick([[], ["192.0.2.1"], ["10.0.0.0/8", "2001:db8::/32"]]);
      case "model_limits":
      case "allowed_models":
        return random.pick([[], [random.pick(catalog.all)]]);
      case "name":
        return `fuzz ${random.string(6)}`;
      case "expires_at":
        return 0;
      default:
        return undefined;
    }
  };
}

/** Input fields that name a source: an upload fills them on an edit, so they stay out. */
const SOURCE_FIELD = /url|task_id|audioId/i;

/** A media call a client would send: a model of the area's kind, its own input fields. */
function mediaBody(op: Operation, world: World, random: Random, hint: Hint) {
  const area = areaOf(op);
  const kind = area === "media" ? random.pick(["image", "audio", "video"]) : area;
  const edit = op.path === "/v1/images/edits";
  const models = mediaModels(world, kind);
  if (models.length === 0) return undefined;
  const model = random.pick(models);
  const fields = (name: string) => Object.keys(model.inputSchemas[name]?.properties ?? {});
  const required = (name: string) => model.inputSchemas[name]?.required ?? [];
  // An edit takes a source (the form's upload); anything else mostly avoids operations that
  // need one, since the worker's fetch of a public URL fails in the sandbox.
  const fitting = model.operations.filter((name) =>
    edit
      ? fields(name).some((field) => SOURCE_FIELD.test(field))
      : !required(name).some((field) => SOURCE_FIELD.test(field)),
  );
  const operation = random.pick(
    fitting.length > 0 && random.chance(0.85) ? fitting : model.operations,
  );
  const input = plausible(model.inputSchemas[operation] ?? {}, random, hint) as Record<
    string,
    unknown
  >;
  for (const field of Object.keys(input)) if (SOURCE_FIELD.test(field)) delete input[field];
  const body: Record<string, unknown> = { model: model.id, prompt: random.pick(PROMPTS), input };
  if (edit || random.chance(0.5)) body.operation = operation;
  if (kind === "image" && random.chance(0.2))
    body.response_format = random.pick(["url", "b64_json"]);
  return body;
}

function textBody(op: Operation, world: World, random: Random): Record<string, unknown> {
  const model = random.pick(world.catalog.text);
  const content = random.pick(PROMPTS);
  const stream = random.chance(0.3);
  if (op.path.endsWith("/chat/completions"))
    return { model, messages: [{ role: "user", content }], max_tokens: 32, stream };
  if (op.path.endsWith("/responses"))
    return { model, input: content, max_output_tokens: 32, stream };
  if (op.path.includes("count_tokens")) return { model, messages: [{ role: "user", content }] };
  if (op.path.includes("/messages"))
    return { model, max_tokens: 32, messages: [{ role: "user", content }], stream };
  return {
    contents: [{ role: "user", parts: [{ text: content }] }],
    generationConfig: { maxOutputTokens: 32 },
  };
}

/**
 * The JSON body of a plausible call: hand-shaped for the paid and text areas (so some
 * calls are accepted and complete), otherwise generated from the operation's schema.
 */
export function plausibleJson(op: Operation, world: World, random: Random, role: Role): unknown {
  const hint = hintFor(op, world, role);
  const area = areaOf(op);
  const fromSchema = () => plausible(op.bodies.json ?? {}, random, hint);
  if (random.chance(0.2)) return fromSchema();
  if (["image", "audio", "video", "media"].includes(area))
    return mediaBody(op, world, random, hint) ?? fromSchema();
  if (area === "text") return textBody(op, world, random);
  return fromSchema();
}
