// Proves a request body with a top-level "__proto__" key (as JSON.parse makes it: an own
// property) reads like any unknown field in every format. Each format's readers were a
// plain object, so the key found Object.prototype as its "reader" and calling it threw:
// the api answered 500 (found by the fuzzer, `bun run fuzz --seed 2 --case 9849`).
import { expect, test } from "bun:test";
import { TEXT_FORMATS } from "./formats.ts";
import type { Json } from "./read.ts";
import { toNeutral, translateRequest } from "./requests.ts";
import { PATH, REQUESTS } from "./testing/requests.ts";

const withProto = (body: Json, value: string) =>
  JSON.parse(`{"__proto__":${value},${JSON.stringify(body).slice(1)}`) as Json;

test.each(TEXT_FORMATS)("%s: a __proto__ key is an unknown field, not a crash", (format) => {
  // A null is an absent field; the others are unknown fields that do not translate.
  expect(toNeutral(format, withProto(REQUESTS[format], "null"), PATH).untranslatable).toEqual([]);
  for (const value of ["{}", "1", '"x"']) {
    const body = withProto(REQUESTS[format], value);
    expect(Object.hasOwn(body, "__proto__")).toBe(true);
    const neutral = toNeutral(format, body, PATH);
    expect(neutral.untranslatable).toContain("__proto__");
    const other = TEXT_FORMATS.find((each) => each !== format)!;
    const translated = translateRequest(format, other, body, { path: PATH });
    expect(translated.ok).toBe(false); // refused by name: the field does not translate
  }
});
