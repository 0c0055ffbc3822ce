import type { Random } from "@gw/random";
import { plausibleJson } from "./bodies.ts";
import type { Draft, DraftBody, Part, Role } from "./draft.ts";
import type { Operation, Param } from "./openapi.ts";
import { solidPng } from "./png.ts";
import { plausible } from "./values.ts";
import { areaOf, ownerOf, secretOf, tasksOf, type World } from "./world.ts";

function roleFor(op: Operation, random: Random): Role {
  if (op.auth === "admin" || op.auth === "metrics") return "admin";
  if (op.auth === "none") return "none";
  return random.weighted<Role>([
    [70, "a"],
    [12, "b"],
    [6, "broke"],
    [6, "limited"],
    [6, "victim"],
  ]);
}

/** A plausible value of a path parameter, URL-encoded: the caller's own ids. */
function pathValue(op: Operation, param: Param, world: World, role: Role, random: Random): string {
  const own = tasksOf(world, ownerOf(role) ?? "a");
  const { fixture, catalog } = world;
  const area = areaOf(op);
  switch (param.name) {
    case "task_id":
      return random.pick(own.image);
    case "id":
      if (op.path.startsWith("/admin/keys")) return fixture.victim.keyId;
      if (op.path.startsWith("/admin/users"))
        return op.method === "GET"
          ? random.pick([fixture.a.userId, fixture.victim.userId])
          : fixture.victim.userId;
      if (area === "audio" || op.path.includes("musiccompat")) return random.pick(own.audio);
      if (area === "video") return random.pick(own.video);
      return random.pick(own.image);
    case "model":
      if (op.method === "POST")
        return `${random.pick(catalog.text)}:${random.pick(["generateContent", "streamGenerateContent"])}`;
      return random.pick(catalog.all);
    case "mode":
      return random.pick(["fast", "relax", "turbo"]);
    case "key":
      return fixture.fileLink.split("?")[0]!.replace("/v1/files/", "");
    case "path":
      return encodeURIComponent(random.pick(["/v1/balance", "/v1/models/:model", "/v1/images/*"]));
    default:
      return encodeURIComponent(String(plausible(param.schema, random, () => undefined)));
  }
}

function queryValue(param: Param, random: Random): string | undefined {
  const now = Math.floor(Date.now() / 1000);
  switch (param.name) {
    case "start_timestamp":
      return String(now - random.int(0, 40) * 86_400);
    case "end_timestamp":
      return String(now + random.int(-2, 1) * 3600);
    case "limit":
    case "pageSize":
      return String(random.int(1, 100));
    case "cursor":
      return String(random.int(1, 50));
    case "format":
      return random.pick(["json", "csv"]);
    case "start_date":
    case "end_date":
      return new Date((now + random.int(-60, 1) * 86_400) * 1000).toISOString().slice(0, 10);
    case "key":
    case "expires":
    case "signature":
      return undefined;
    default: {
      const value = plausible(param.schema, random, () => undefined);
      return typeof value === "object" ? undefined : String(value);
    }
  }
}

/** Query of the file route: the fixture's signed link, as it was handed out. */
function fileQuery(world: World): [string, string][] {
  return [...new URLSearchParams(world.fixture.fileLink.split("?")[1] ?? "").entries()];
}

function editForm(body: Record<string, unknown>, random: Random): Part[] {
  const parts: Part[] = [];
  for (const [name, value] of Object.entries(body)) {
    if (name === "image" || name === "mask" || value === undefined) continue;
    parts.push({ name, data: typeof value === "string" ? value : JSON.stringify(value) });
  }
  const size = random.pick([16, 64, 256]);
  parts.push({
    name: "image",
    filename: "source.png",
    contentType: "image/png",
    data: solidPng(size, size, [random.int(0, 255), 80, 160]),
  });
  return parts;
}

function plausibleBody(op: Operation, world: World, role: Role, random: Random): DraftBody | null {
  if (!op.bodies.json && !op.bodies.multipart) return null;
  const formShare = areaOf(op) === "image" ? 0.7 : 0.3;
  if (op.bodies.multipart && (!op.bodies.json || random.chance(formShare))) {
    const body = plausibleJson(op, world, random, role) as Record<string, unknown>;
    const parts =
      areaOf(op) === "image"
        ? editForm(body, random)
        : Object.entries(body).map(([name, value]) => ({
            name,
            data: typeof value === "string" ? value : JSON.stringify(value),
          }));
    return { kind: "multipart", parts, boundary: `fuzz${random.string(16)}` };
  }
  return { kind: "json", value: plausibleJson(op, world, random, role) };
}

/** Puts a role's secret where the operation's clients put it (mostly Authorization). */
export function applyCredential(draft: Draft, world: World, random: Random): void {
  const secret = secretOf(draft.role, world.fixture);
  delete draft.headers.authorization;
  delete draft.headers["x-api-key"];
  delete draft.headers["x-goog-api-key"];
  draft.query = draft.query.filter(([name]) => name !== "key");
  if (secret === null) return;
  const takes = (scheme: string) => (draft.op.schemes.includes(scheme) ? 1 : 0);
  const how = random.weighted([
    [8, "bearer"],
    [takes("apiKey"), "x-api-key"],
    [takes("googApiKey"), "x-goog-api-key"],
    [takes("googQueryKey"), "query"],
  ]);
  if (how === "bearer") draft.headers.authorization = `Bearer ${secret}`;
  else if (how === "query") draft.query.push(["key", secret]);
  else draft.headers[how] = secret;
}

/** A request a well-behaved client could send to `op`; mutations start from it. */
export function plausibleDraft(op: Operation, world: World, random: Random): Draft {
  const role = roleFor(op, random);
  const draft: Draft = {
    op,
    method: op.method,
    pathParams: {},
    query: [],
    headers: {},
    body: null,
    role,
    mutation: "none",
    mustRefuse: null,
  };
  for (const param of op.params) {
    if (param.in === "path")
      draft.pathParams[param.name] = pathValue(op, param, world, role, random);
    else if (param.in === "query" && (param.required || random.chance(0.4))) {
      const value = queryValue(param, random);
      if (value !== undefined) draft.query.push([param.name, value]);
    } else if (param.in === "header" && param.name === "Range" && random.chance(0.3))
      draft.headers.range = `bytes=0-${random.int(0, 2048)}`;
  }
  if (op.path === "/v1/files/{key}") draft.query = fileQuery(world);
  if (op.path.includes("streamGenerateContent") || draft.pathParams.model?.includes("stream"))
    draft.query.push(["alt", "sse"]);
  draft.body = plausibleBody(op, world, role, random);
  applyCredential(draft, world, random);
  return draft;
}
