import { gzipSync } from "node:zlib";
import type { Draft } from "./draft.ts";
import type { Mutation } from "./mutation.ts";
import { applyCredential } from "./plausible.ts";

/** Mutations of headers other than credentials: idempotency, ranges, proxies, sizes. */

const takesIdempotency = (draft: Draft) =>
  draft.op.params.some((param) => param.name.toLowerCase() === "idempotency-key");

const BAD_IDEMPOTENCY = ["", " ", "has space", "k".repeat(256), "caf\u00e9", "tab\there", "\u007f"];

const idempotency: Mutation = {
  name: "header:idempotency",
  weight: 8,
  applies: takesIdempotency,
  apply(draft, _world, random) {
    if (random.chance(0.4)) {
      const value = random.pick(BAD_IDEMPOTENCY);
      draft.headers["idempotency-key"] = value;
      draft.mutation = `header:idempotency:bad ${JSON.stringify(value).slice(0, 40)}`;
      // An empty header may not reach the server at all; every other one must be refused.
      if (value.trim() !== "") draft.mustRefuse = "a malformed Idempotency-Key";
      return;
    }
    // A handful of shared keys: the first case to use one is accepted, later ones with
    // another body must be refused (409) without touching money.
    const value = `fuzz-idem-${random.int(0, 5)}`;
    draft.headers["idempotency-key"] = value;
    draft.mutation = `header:idempotency:shared ${value}`;
  },
};

const RANGES = [
  "bytes=0-0",
  "bytes=-1",
  "bytes=0-",
  "bytes=999999999-",
  "bytes=5-1",
  "bytes=0-1,4-5",
  "bytes=-0",
  "bytes=--1",
  "bytes=18446744073709551616-",
  "items=0-1",
  "bytes=abc",
  "bytes=",
  "bytes 0-1",
];

const range: Mutation = {
  name: "header:range",
  weight: 10,
  applies: (draft) => draft.op.params.some((param) => param.name === "Range"),
  apply(draft, _world, random) {
    const value = random.pick(RANGES);
    draft.headers.range = value;
    draft.mutation = `header:range:${value}`;
  },
};

const spoofedIp: Mutation = {
  name: "header:forwarded-for",
  weight: 2,
  applies: (draft) => draft.op.auth === "key",
  apply(draft, world, random) {
    // The ip-bound key allows only 203.0.113.7; no proxy is trusted, so the header must not count.
    draft.role = "ipBound";
    applyCredential(draft, world, random);
    const header = random.pick(["x-forwarded-for", "x-real-ip", "forwarded", "cf-connecting-ip"]);
    draft.headers[header] = header === "forwarded" ? "for=203.0.113.7" : "203.0.113.7";
    draft.mutation = `header:forwarded-for:${header} spoofing the key's allowed IP`;
    draft.mustRefuse = "a client IP claimed in a header from an untrusted peer";
  },
};

const oversized: Mutation = {
  name: "header:oversized",
  weight: 2,
  applies: () => true,
  apply(draft, _world, random) {
    const kind = random.pick(["one-big", "many", "host", "accept", "encoding"] as const);
    if (kind === "one-big")
      draft.headers["x-fuzz"] = "h".repeat(random.pick([8_000, 15_000, 70_000]));
    else if (kind === "many") for (let i = 0; i < 300; i++) draft.headers[`x-fuzz-${i}`] = "v";
    else if (kind === "host")
      draft.headers.host = random.pick(["evil.example", "127.0.0.1:1", "[::1]", "a".repeat(300)]);
    else if (kind === "accept")
      draft.headers.accept = random.pick([
        "text/csv",
        "application/xml",
        "*/*;q=0",
        "text/event-stream",
      ]);
    else if (draft.body?.kind === "json") {
      // A small gzip that inflates far past the limit: the server must not inflate it.
      draft.body = { kind: "bytes", bytes: gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)) };
      draft.headers["content-encoding"] = "gzip";
      draft.contentType = "application/json";
      draft.mustRefuse = "a gzip body is not JSON, and inflated it is only spaces";
    } else
      draft.headers["content-encoding"] = random.pick(["gzip", "br", "deflate", "identity, x"]);
    draft.mutation = `header:oversized:${kind}`;
  },
};

export const HEADER_MUTATIONS: Mutation[] = [idempotency, range, spoofedIp, oversized];
