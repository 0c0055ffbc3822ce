// Proves every error code has an HTTP status of spec section 7's kind and yields a body that
// matches the one published error schema, and that admin schemas refuse unknown fields.
import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { KeyCreate, UserCreate } from "./admin.ts";
import { ERRORS, ErrorBody, type ErrorCode, errorBody } from "./errors.ts";

describe("error table", () => {
  test("every code yields a body of the one error shape", () => {
    for (const code of Object.keys(ERRORS) as ErrorCode[]) {
      const body = errorBody(code, "message");
      expect(Value.Check(ErrorBody, body)).toBe(true);
      expect(body.error.code).toBe(code);
    }
  });

  test("statuses follow spec section 7", () => {
    expect(ERRORS.invalid_request.status).toBe(400);
    for (const code of [
      "invalid_api_key",
      "key_disabled",
      "key_expired",
      "key_exhausted",
      "key_deleted",
    ] as const) {
      expect(ERRORS[code].status).toBe(401);
    }
    expect(ERRORS.ip_not_allowed.status).toBe(403);
    expect(ERRORS.rate_limited.status).toBe(429);
    expect(ERRORS.endpoint_closed.status).toBe(503);
  });
});

describe("admin schemas", () => {
  test("unknown fields are refused, not ignored", () => {
    expect(Value.Check(UserCreate, { name: "a" })).toBe(true);
    expect(Value.Check(UserCreate, { name: "a", admin: true })).toBe(false);
    expect(Value.Check(KeyCreate, { user_id: "1", name: "k", secret: "sk-x" })).toBe(false);
  });
});
