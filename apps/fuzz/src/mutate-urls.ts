import type { Draft } from "./draft.ts";
import type { Mutation } from "./mutation.ts";
import { PRIVATE_URLS } from "./pools.ts";
import { areaOf, mediaModels } from "./world.ts";

/**
 * Private-network and non-HTTPS addresses in every field the gateway fetches or calls:
 * source images, masks, first frames, webhooks. Each must be refused when submitted,
 * before any money is held or task made.
 */

/** Names resolved only by DNS: the api cannot see they are private until it fetches them. */
const NEEDS_DNS = /nip\.io|google\.internal/;

const SLOTS = [
  "image",
  "image[]",
  "mask",
  "webhook_url",
  "input.image_url",
  "input.image_urls",
] as const;
type Slot = (typeof SLOTS)[number];

function slotsFor(draft: Draft): Slot[] {
  const area = areaOf(draft.op);
  if (area === "image" || area === "media") return [...SLOTS];
  if (area === "video") return ["webhook_url", "input.image_url"];
  if (area === "audio") return ["webhook_url"];
  return [];
}

const privateUrl: Mutation = {
  name: "url:private",
  weight: 12,
  applies: (draft) => draft.method === "POST" && slotsFor(draft).length > 0,
  apply(draft, world, random) {
    const url = random.pick(PRIVATE_URLS);
    const slot = random.pick(slotsFor(draft));
    const area = areaOf(draft.op);
    const kind = area === "media" ? "image" : area;
    const model = random.pick(mediaModels(world, kind));
    const body: Record<string, unknown> = { model: model.id, prompt: "a fuzzed source" };
    if (slot === "input.image_url" || slot === "input.image_urls") {
      const operation = model.operations.find((name) =>
        Object.keys(model.inputSchemas[name]?.properties ?? {}).includes(slot.slice(6)),
      );
      if (operation) body.operation = operation;
      body.input = { [slot.slice(6)]: slot === "input.image_urls" ? [url] : url };
    } else if (slot === "image[]") body.image = [url];
    else body[slot] = url;
    draft.body = { kind: "json", value: body };
    draft.contentType = undefined;
    draft.mutation = `url:private:${slot}=${url}`;
    // A quote fetches and calls nothing, so what it does with a URL is beside the point.
    const quote = area === "media";
    draft.mustRefuse = NEEDS_DNS.test(url) || quote ? null : "a private-network or non-HTTPS URL";
  },
};

export const URL_MUTATIONS: Mutation[] = [privateUrl];
