// Proves `endpoints close`, `list` and `open` against a real api process: a closed
// endpoint answers the closure error to a client's very next call, and opens again.
import { expect, test } from "bun:test";
import { cliFor, createUser, recordSecret, startApi } from "../testing.ts";
import { endpointPath } from "./endpoints.ts";

const api = await startApi();
const cli = cliFor(api);

test("a name without a leading slash is taken under /v1", () => {
  expect(endpointPath("balance")).toBe("/v1/balance");
  expect(endpointPath("images/*")).toBe("/v1/images/*");
  expect(endpointPath("/api/usage/token/")).toBe("/api/usage/token/");
});

test("close answers the closure error to clients; list shows it; open restores the route", async () => {
  const userId = await createUser(cli, "--name", "Client", "--balance-usd", "1");
  const key = recordSecret(
    JSON.parse((await cli(["keys", "create", userId, "--json"])).stdout).key as string,
  );
  expect((await cli(["endpoints", "list"])).stdout).toBe("No endpoint is closed.\n");

  const closed = await cli(["endpoints", "close", "balance"]);
  expect(closed.code).toBe(0);
  expect(closed.stdout).toStartWith("Closed /v1/balance: it answers 503 endpoint_closed");
  const refused = await api.call("GET", "/v1/balance", key);
  expect(refused.status).toBe(503);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
    "endpoint_closed",
  );
  const listed = await cli(["endpoints", "list"]);
  expect(listed.stdout).toMatch(
    /^PATH {9}CLOSED SINCE\n\/v1\/balance {2}\d{4}-\d\d-\d\d \d\d:\d\dZ\n$/,
  );
  const json = JSON.parse((await cli(["endpoints", "list", "--json"])).stdout);
  expect(json.data).toEqual([{ path: "/v1/balance", closed_at: expect.any(Number) }]);

  expect((await cli(["endpoints", "open", "/v1/balance"])).stdout).toBe("Opened /v1/balance.\n");
  expect((await api.call("GET", "/v1/balance", key)).status).toBe(200);
  expect((await cli(["endpoints", "list", "--json"])).stdout).toBe('{\n  "data": []\n}\n');
});

test("prefix patterns close everything under them; admin paths cannot be closed", async () => {
  const closed = await cli(["endpoints", "close", "images/*", "--json"]);
  expect(JSON.parse(closed.stdout)).toEqual({ path: "/v1/images/*", closed: true });
  expect((await cli(["endpoints", "open", "images/*"])).code).toBe(0);
  const admin = await cli(["endpoints", "close", "/admin/*"]);
  expect(admin.code).toBe(1);
  expect(admin.stderr).toContain("admin and documentation paths cannot be closed");
});
