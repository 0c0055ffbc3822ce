import { expect, test } from "bun:test";
import { requestIdFrom } from "./request-id.ts";

test("a well-formed client id is kept; anything else gets a fresh UUID", () => {
  expect(requestIdFrom("req_01HZX-abc.def:1")).toBe("req_01HZX-abc.def:1");
  for (const bad of [
    null,
    undefined,
    "",
    "short",
    "has space in it",
    "x".repeat(129),
    "new\nline-injected",
    'quote"d-value',
  ])
    expect(requestIdFrom(bad)).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
  expect(requestIdFrom(null)).not.toBe(requestIdFrom(null));
});
