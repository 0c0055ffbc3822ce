import type { Random } from "@gw/random";
import type { Draft } from "./draft.ts";
import { type Mutation, shortly } from "./mutation.ts";

/** Mutations of a whole body: size, nesting, encoding, media type, and not-JSON at all. */

/** MAX_JSON_BODY_BYTES as the stack runs it (the default, 1 MiB). */
export const JSON_LIMIT_BYTES = 1024 * 1024;

const takesBody = (draft: Draft) => Boolean(draft.op.bodies.json || draft.op.bodies.multipart);
const encoder = new TextEncoder();

function jsonValueOf(draft: Draft): Record<string, unknown> {
  const value = draft.body?.kind === "json" ? draft.body.value : null;
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : { model: "x" };
}

/** The body padded with a `pad` field so its JSON text is exactly `bytes` long. */
function paddedTo(value: Record<string, unknown>, bytes: number): string {
  const base = JSON.stringify({ ...value, pad: "" });
  return JSON.stringify({ ...value, pad: "p".repeat(Math.max(0, bytes - base.length)) });
}

const size: Mutation = {
  name: "body:size",
  weight: 6,
  applies: takesBody,
  apply(draft, _world, random) {
    const value = jsonValueOf(draft);
    draft.contentType = "application/json";
    const mode = random.pick(["over", "under", "exact", "stream-over", "stream-under"] as const);
    if (mode === "stream-over" || mode === "stream-under") {
      const chunk = encoder.encode(" ".repeat(64 * 1024));
      const count = mode === "stream-over" ? random.int(17, 40) : random.int(1, 15);
      draft.body = { kind: "stream", chunk, count };
      draft.mutation = `body:size:${mode} ${count}x64KiB of spaces, chunked`;
      if (mode === "stream-over") draft.mustRefuse = "the body is over the JSON limit";
      return;
    }
    const bytes =
      mode === "over"
        ? JSON_LIMIT_BYTES + random.pick([1, 100, 4096, JSON_LIMIT_BYTES])
        : mode === "exact"
          ? JSON_LIMIT_BYTES
          : JSON_LIMIT_BYTES - random.pick([1, 64, 4096]);
    draft.body = { kind: "text", text: paddedTo(value, bytes) };
    draft.mutation = `body:size:${mode} ${bytes} bytes`;
    if (mode === "over") draft.mustRefuse = "the body is over the JSON limit";
  },
};

const nesting: Mutation = {
  name: "body:nesting",
  weight: 4,
  applies: takesBody,
  apply(draft, _world, random) {
    const depth = random.pick([63, 64, 65, 200, 10_000, 200_000]);
    const where = random.pick(["root", "field", "in-string"] as const);
    const open = random.chance(0.5) ? "[" : '{"a":';
    const close = open === "[" ? "]" : "}";
    const deep = `${open.repeat(depth)}1${close.repeat(depth)}`;
    const value = jsonValueOf(draft);
    const text =
      where === "root"
        ? deep
        : where === "field"
          ? `${JSON.stringify(value).slice(0, -1)},"deep":${deep}}`
          : JSON.stringify({ ...value, prompt: deep.slice(0, 30_000) });
    draft.body = { kind: "text", text };
    draft.contentType = "application/json";
    draft.mutation = `body:nesting:${where} depth ${depth}`;
    // The root itself counts as a level: a field nested 64 deep is 65 levels in all.
    const levels = where === "root" ? depth : where === "field" ? depth + 1 : 1;
    if (levels > 64 && text.length <= JSON_LIMIT_BYTES) draft.mustRefuse = "nested deeper than 64";
  },
};

const BAD_UTF8: [string, number[]][] = [
  ["0xff", [0xff]],
  ["lone continuation", [0x80]],
  ["truncated 2-byte", [0xc3]],
  ["overlong slash", [0xc0, 0xaf]],
  ["UTF-16 surrogate", [0xed, 0xa0, 0x80]],
  ["above U+10FFFF", [0xf4, 0x90, 0x80, 0x80]],
  ["latin-1 e-acute", [0xe9]],
];

const utf8: Mutation = {
  name: "body:utf8",
  weight: 4,
  applies: takesBody,
  apply(draft, _world, random) {
    const [name, bytes] = random.pick(BAD_UTF8);
    const text = JSON.stringify({ ...jsonValueOf(draft), prompt: "MARK" });
    const [before, after] = text.split("MARK") as [string, string];
    draft.body = {
      kind: "bytes",
      bytes: Buffer.concat([encoder.encode(before), new Uint8Array(bytes), encoder.encode(after)]),
    };
    draft.contentType = "application/json";
    draft.mutation = `body:utf8:${name} in prompt`;
    draft.mustRefuse = "the body is not valid UTF-8";
  },
};

const NOT_JSON = [
  "",
  " ",
  "null",
  "[]",
  "1",
  '"text"',
  "true",
  "{",
  '{"model":',
  "{'model': 'x'}",
  '{"model": "x",}',
  '{"model": NaN}',
  '{"model": Infinity}',
  '{"model": "x"} trailing',
  '{"model": "x"}{"model": "y"}',
  '/* comment */ {"model": "x"}',
  '{"model": "\\u0000"}',
  '{"model": "\\ud800"}',
  '{"a": "\\x41"}',
  "\ufeff{}",
];

const notJson: Mutation = {
  name: "body:not-json",
  weight: 5,
  applies: takesBody,
  apply(draft, _world, random) {
    const pick = random.next();
    if (pick < 0.2) {
      const text = JSON.stringify(jsonValueOf(draft));
      const cut = random.int(0, Math.max(0, text.length - 1));
      draft.body = { kind: "text", text: text.slice(0, cut) };
      draft.mutation = `body:not-json:truncated at ${cut}`;
      draft.mustRefuse = "the body is truncated JSON";
    } else if (pick < 0.35) {
      const length = random.pick([1, 16, 4096, 500_000]);
      draft.body = { kind: "bytes", bytes: random.bytes(length) };
      draft.mutation = `body:not-json:${length} random bytes`;
      draft.mustRefuse = "the body is random bytes";
    } else {
      const text = random.pick(NOT_JSON);
      draft.body = { kind: "text", text };
      draft.mutation = `body:not-json:${JSON.stringify(text)}`;
      if (!text.startsWith("\ufeff")) draft.mustRefuse = "the body is not a JSON object";
    }
    draft.contentType = "application/json";
  },
};

const CONTENT_TYPES: (string | null)[] = [
  null,
  "",
  "text/plain",
  "application/x-www-form-urlencoded",
  "application/xml",
  "application/json; charset=latin1",
  "application/json; charset=utf-16",
  "application/json; charset=UTF-8",
  "APPLICATION/JSON",
  "application/json;charset=utf-8;charset=utf-8",
  "application/json; boundary=x",
  "application/json; =x",
  'application/json; charset="utf-8',
  "application/vnd.api+json",
  "application/json, text/plain",
  "application/",
  "/json",
  "*/*",
  "json",
  "multipart/form-data",
  "multipart/form-data; boundary=",
  `multipart/form-data; boundary=${"b".repeat(71)}`,
  "multipart/mixed; boundary=x",
  `application/json; x=${"y".repeat(8000)}`,
];

const mediaType: Mutation = {
  name: "body:content-type",
  weight: 6,
  applies: takesBody,
  apply(draft, _world, random) {
    const type = random.pick(CONTENT_TYPES);
    draft.contentType = type;
    draft.mutation = `body:content-type:${shortly(type)} on a ${draft.body?.kind ?? "no"} body`;
    if (draft.body === null) draft.body = { kind: "json", value: jsonValueOf(draft) };
    const essence = type?.split(";")[0]?.trim().toLowerCase();
    // What an earlier mutation left may be JSON text of its own; only the form is not JSON.
    const fits =
      (essence === "application/json" && draft.body.kind !== "multipart") ||
      (essence === "multipart/form-data" && draft.body.kind === "multipart");
    if (!fits) draft.mustRefuse = "the Content-Type does not describe the body";
    if (/charset=(latin1|utf-16)/.test(type ?? "")) draft.mustRefuse = "a charset other than UTF-8";
  },
};

export const BODY_MUTATIONS: Mutation[] = [size, nesting, utf8, notJson, mediaType];

/** A body on a method or route that takes none: it must be ignored or refused, never crash. */
export const strayBody: Mutation = {
  name: "body:stray",
  weight: 1,
  applies: (draft: Draft) => !takesBody(draft) && !["GET", "HEAD"].includes(draft.method),
  apply(draft: Draft, _world, random: Random) {
    draft.body = random.chance(0.5)
      ? { kind: "json", value: { unexpected: true } }
      : { kind: "bytes", bytes: random.bytes(random.pick([10, 2 * JSON_LIMIT_BYTES])) };
    draft.mutation = `body:stray:${draft.body.kind}`;
  },
};
