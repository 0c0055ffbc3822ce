// Proves that a task id the router cannot decode (`%ff`, a lone `%`) on the compatibility
// readers answers 400 in the error shape, as on the other task routes, not 500
// (found by the fuzzer, apps/fuzz: `bun run fuzz --seed 1 --case 703`).
import { expect, test } from "bun:test";
import { startTestApi } from "../../testing.ts";

const api = await startTestApi();
const { secret } = await api.account({ balanceUsd: 1 });

const PATHS = [
  "/musiccompat/fetch/%ff",
  "/musiccompat/fetch/%",
  "/imgcompat/task/%ff/fetch",
  "/imgcompat/task/%/image-seed",
  "/fast/imgcompat/task/%ff/fetch",
  "/fast/imgcompat/task/%ff/image-seed",
];

test.each(PATHS)("GET %s answers 400 invalid_request", async (path) => {
  const response = await api.call("GET", path, { key: secret });
  expect(response.status).toBe(400);
  const body = (await response.json()) as { error: { code: string } };
  expect(Object.keys(body)).toEqual(["error"]);
  expect(body.error.code).toBe("invalid_request");
});

test("a well-formed id of no task is still a 404", async () => {
  const response = await api.call("GET", "/imgcompat/task/img_nothing/fetch", { key: secret });
  expect(response.status).toBe(404);
});
