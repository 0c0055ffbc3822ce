// Proves the `keys` commands against a real api process: a created key's secret is printed
// once and works at once, disable/enable/delete take effect on the key's very next call,
// no later read shows the secret, and the missing key listing is named plainly.
import { describe, expect, test } from "bun:test";
import { cliFor, createUser, recordSecret, startApi } from "../testing.ts";

const api = await startApi();
const cli = cliFor(api);

/** The key's next call: its owner's wallet, or the refusal. */
async function balance(secret: string) {
  const response = await api.call("GET", "/v1/balance", secret);
  const body = (await response.json()) as {
    balance?: number;
    total_spent?: number;
    error?: { code: string };
  };
  return { status: response.status, body };
}

async function createKey(userId: string, ...flags: string[]) {
  const created = await cli(["keys", "create", userId, "--json", ...flags]);
  expect(created.code).toBe(0);
  const key = JSON.parse(created.stdout) as { id: string; key: string; quota: number | null };
  recordSecret(key.key);
  return key;
}

describe("keys", () => {
  test("create prints the secret once, clearly, and it works against /v1/balance", async () => {
    const userId = await createUser(cli, "--name", "Keyholder", "--balance-usd", "7.25");
    const created = await cli(["keys", "create", userId, "--name", "ci", "--budget-usd", "5"]);
    expect(created).toMatchObject({ code: 0, stderr: "" });
    const secrets = created.stdout.match(/sk-[A-Za-z0-9]{48}/g) ?? [];
    expect(secrets).toHaveLength(1);
    recordSecret(secrets[0]!);
    expect(created.stdout).toContain(
      `shown this once (only its hash is kept; store it now):\n\n    ${secrets[0]}\n`,
    );
    expect(created.stdout).toMatch(/budget\s+\$5\.00\n/);
    expect(await balance(secrets[0]!)).toEqual({
      status: 200,
      body: { balance: 7.25, total_spent: 0 },
    });
    // No later read shows it: show gives the hint only.
    const keyId = /Created key (\d+) for user/.exec(created.stdout)![1]!;
    const shown = await cli(["keys", "show", keyId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/name\s+ci\n/);
    expect(shown.stdout).not.toContain(secrets[0]!.slice(8, 40));
  });

  test("--json gives the whole answer, secret included, and budgets in quota", async () => {
    const userId = await createUser(cli, "--name", "Scripted");
    const key = await createKey(
      userId,
      "--budget-usd",
      "0.25",
      "--rpm",
      "30",
      "--expires",
      "2099-01-01",
    );
    expect(key).toMatchObject({
      user_id: userId,
      name: "default",
      quota: 125_000,
      rpm_limit: 30,
      expires_at: 4_070_908_800,
    });
    expect(key.key).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    const read = JSON.parse((await cli(["keys", "show", key.id, "--json"])).stdout);
    expect(read.key).toBeUndefined();
  });

  test("disable refuses the key's next call, enable lets it back, delete ends it", async () => {
    const userId = await createUser(cli, "--name", "Toggled", "--balance-usd", "1");
    const key = await createKey(userId);
    expect((await cli(["keys", "disable", key.id])).stdout).toBe(`Key ${key.id} is disabled.\n`);
    const disabled = await balance(key.key);
    expect(disabled.status).toBe(401);
    expect(disabled.body.error).toMatchObject({ code: "key_disabled" });
    expect((await cli(["keys", "enable", key.id])).stdout).toBe(`Key ${key.id} is enabled.\n`);
    expect((await balance(key.key)).status).toBe(200);
    expect((await cli(["keys", "delete", key.id])).stdout).toBe(
      `Deleted key ${key.id}; it never authorizes again.\n`,
    );
    expect((await balance(key.key)).status).toBe(401);
    expect(await cli(["keys", "delete", key.id])).toEqual({
      code: 1,
      stdout: "",
      stderr: `gw-admin: No key ${key.id} (HTTP 404, not_found)\n`,
    });
  });

  test("delete --json prints a parseable confirmation for the 204", async () => {
    const key = await createKey(await createUser(cli, "--name", "Gone"));
    const deleted = await cli(["keys", "delete", key.id, "--json"]);
    expect(JSON.parse(deleted.stdout)).toEqual({ id: key.id, deleted: true });
  });

  test("the admin API lacks a key listing: list names the missing route, exit 1", async () => {
    const listed = await cli(["keys", "list", "1"]);
    expect(listed).toEqual({
      code: 1,
      stdout: "",
      stderr: "gw-admin: keys list: this gateway's admin API has no GET /admin/keys yet\n",
    });
  });

  test("bad flags are usage errors (exit 2); what only the api can judge is its error (exit 1)", async () => {
    const userId = await createUser(cli, "--name", "Strict");
    for (const flags of [
      ["--rpm", "ten"],
      ["--budget-usd", "1.0000001"],
      ["--expires", "2001-01-01"],
      ["--expires", "soon"],
      ["--nme", "typo"],
    ]) {
      const refused = await cli(["keys", "create", userId, ...flags]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toStartWith("gw-admin: ");
    }
    const badIp = await cli(["keys", "create", userId, "--ips", "10.0.0.0/33"]);
    expect(badIp.code).toBe(1);
    expect(badIp.stderr).toContain("allowed_ips");
    expect(badIp.stderr).toEndWith("(HTTP 400, invalid_request)\n");
    const noUser = await cli(["keys", "create", "999999999"]);
    expect(noUser.code).toBe(1);
    const [row] = await api.store.sql<{ n: bigint }[]>`
      select count(*)::bigint as n from api_keys where user_id = ${BigInt(userId)}`;
    expect(row!.n).toBe(0n);
  });
});
