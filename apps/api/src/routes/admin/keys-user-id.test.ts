// Proves that POST /admin/keys with a numeric user_id beyond any account id (past int8,
// 2^63) answers 400 "no user" in the error shape, not 500 from the database (found by the
// fuzzer, apps/fuzz: `bun run fuzz --seed 1 --case 2487`).
import { expect, test } from "bun:test";
import { startTestApi } from "../../testing.ts";

const api = await startTestApi();

test.each([
  ["2^63 as a JSON number", "9223372036854776000"],
  ["1e19", "1e19"],
  ["19 digits", "1000000000000000000"],
])("user_id %s answers 400", async (_name, number) => {
  const response = await api.call("POST", "/admin/keys", {
    headers: {
      authorization: `Bearer ${api.config.adminToken}`,
      "content-type": "application/json",
    },
    rawBody: `{"user_id":${number},"name":"k"}`,
  });
  expect(response.status).toBe(400);
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe("invalid_request");
  expect(body.error.message).toContain("user_id");
});
