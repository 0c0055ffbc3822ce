// Proves Content-Type parsing by RFC 9110: type and subtype compare case-insensitively,
// parameters are parsed (quoted or not, names lowercased), and anything else is null.
import { expect, test } from "bun:test";
import { parseMediaType } from "./media-type.ts";

test("media types are parsed by the standard's rules", () => {
  const json = parseMediaType('Application/JSON ; Charset="UTF-8";;foo=bar');
  expect(json?.essence).toBe("application/json");
  expect(json?.params.get("charset")).toBe("UTF-8");
  expect(json?.params.get("foo")).toBe("bar");
  const form = parseMediaType('multipart/form-data; boundary="a b\\"c"');
  expect(form?.params.get("boundary")).toBe('a b"c');
  expect(parseMediaType("application/jsonx")?.essence).toBe("application/jsonx");
  for (const bad of [
    "json",
    "",
    "application/",
    "/json",
    "a/b c",
    "a/b; x",
    "a/b; x=1; x=2",
    'a/b; x="open',
  ])
    expect(parseMediaType(bad), bad).toBeNull();
});
