// Proves the `keys` commands against a real api process: a created key's secret is printed
// once and works at once, disable/enable/delete take effect on the key's very next call,
// the listing pages through the keys that are not deleted, and no output but the creation
// ever shows a secret (or the admin token).
import { describe, expect, test } from "bun:test";
import {
  cliFor,
  createUser,
  expectNoSecretsShown,
  type LoggedRun,
  recordSecret,
  startApi,
} from "../testing.ts";

const api = await startApi();
const log: LoggedRun[] = [];
const cli = cliFor(api, log);
/** Every secret this file's CLI runs printed. */
const allSecrets: string[] = [];

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

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
  const key = JSON.parse(created.stdout) as {
    id: string;
    key: string;
    key_hint: string;
    quota: number | null;
  };
  allSecrets.push(recordSecret(key.key));
  return key;
}

describe("keys", () => {
  test("create prints the secret once, clearly, and it works against /v1/balance", async () => {
    const userId = await createUser(cli, "--name", "Keyholder", "--balance-usd", "7.25");
    const created = await cli(["keys", "create", userId, "--name", "ci", "--budget-usd", "5"]);
    expect(created).toMatchObject({ code: 0, stderr: "" });
    const secrets = created.stdout.match(/sk-[A-Za-z0-9]{48}/g) ?? [];
    expect(secrets).toHaveLength(1);
    const secret = recordSecret(secrets[0]!);
    allSecrets.push(secret);
    expect(created.stdout).toContain(
      `shown this once (only its hash is kept; store it now):\n\n    ${secret}\n`,
    );
    expect(created.stdout).toMatch(/budget\s+\$5\.00\n/);
    expect(await balance(secret)).toEqual({
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

  test("list shows an account's keys that are not deleted, with hint, budget and limits", async () => {
    const userId = await createUser(cli, "--name", "Listed");
    const ci = await createKey(userId, "--name", "ci", "--budget-usd", "5", "--rpm", "60");
    const gone = await createKey(userId, "--name", "gone");
    const dated = await createKey(userId, "--name", "dated", "--expires", "2099-01-01");
    expect((await cli(["keys", "delete", gone.id])).code).toBe(0);
    const listed = await cli(["keys", "list", userId]);
    expect(listed).toMatchObject({ code: 0, stderr: "" });
    const lines = listed.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID +USER +NAME +STATUS +HINT +BUDGET +USED +RPM +EXPIRES$/);
    const row = (id: string, rest: string) => new RegExp(`^ *${id} +${userId}  ${rest}$`);
    expect(lines.slice(1)).toHaveLength(2);
    expect(lines[1]).toMatch(
      row(ci.id, `ci +enabled  ${literal(ci.key_hint)} +\\$5\\.00  \\$0\\.00 +60  never`),
    );
    expect(lines[2]).toMatch(
      row(
        dated.id,
        `dated +enabled  ${literal(dated.key_hint)} +wallet  \\$0\\.00 +-  2099-01-01 00:00Z`,
      ),
    );
    expect(await cli(["keys", "list", "999999999"])).toEqual({
      code: 0,
      stdout: "No keys of user 999999999.\n",
      stderr: "",
    });
  });

  test("list pages with --limit and --after, --all follows them, across accounts", async () => {
    const first = await createUser(cli, "--name", "Paged A");
    const second = await createUser(cli, "--name", "Paged B");
    const made = [
      (await createKey(first)).id,
      (await createKey(second)).id,
      (await createKey(first)).id,
    ];
    const onePage = await cli(["keys", "list", first, "--limit", "1"]);
    expect(onePage.stdout).toMatch(new RegExp(`\\n *${made[0]} +${first} `));
    expect(onePage.stdout.trimEnd().split("\n")).toHaveLength(2);
    expect(onePage.stderr).toBe(
      `More keys follow: gw-admin keys list ${first} --limit 1 --after ${made[0]} (or --all for every page)\n`,
    );
    const next = await cli(["keys", "list", first, "--limit", "1", "--after", made[0]!]);
    expect(next).toMatchObject({ code: 0, stderr: "" });
    expect(next.stdout).toMatch(new RegExp(`\\n *${made[2]} +${first} `));
    expect(next.stdout.trimEnd().split("\n")).toHaveLength(2);

    // Every account's keys: page by page they are what --all gathers.
    const ids = async (...flags: string[]) => {
      const listed = await cli(["keys", "list", "--json", ...flags]);
      expect(listed.code).toBe(0);
      return (JSON.parse(listed.stdout) as { data: { id: string }[] }).data.map((key) => key.id);
    };
    const all = await ids("--all");
    expect(all).toEqual(expect.arrayContaining(made));
    expect(await ids("--all", "--limit", "1")).toEqual(all);
    expect(await ids("--all", "--limit", "2", "--after", made[0]!)).toEqual(
      all.filter((id) => Number(id) > Number(made[0])),
    );
    const table = await cli(["keys", "list", "--all", "--limit", "2"]);
    expect(table).toMatchObject({ code: 0, stderr: "" });
    const tableIds = table.stdout
      .trimEnd()
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(" ")[0]);
    expect(tableIds).toEqual(all);
    const page = JSON.parse((await cli(["keys", "list", second, "--json"])).stdout);
    expect(page).toMatchObject({ data: [{ id: made[1], user_id: second }], has_more: false });
    expect(page.data[0].key).toBeUndefined();
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
    for (const args of [
      ["keys", "list", "abc"],
      ["keys", "list", "--limit", "101"],
      ["keys", "list", "--after", "-1"],
    ]) {
      const refused = await cli(args);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe("");
    }
    const noUser = await cli(["keys", "create", "999999999"]);
    expect(noUser.code).toBe(1);
    const [row] = await api.store.sql<{ n: bigint }[]>`
      select count(*)::bigint as n from api_keys where user_id = ${BigInt(userId)}`;
    expect(row!.n).toBe(0n);
  });

  test("no output of this file showed the admin token or a key secret after its creation", () => {
    expect(allSecrets.length).toBeGreaterThanOrEqual(8);
    expectNoSecretsShown(log, allSecrets);
  });
});
