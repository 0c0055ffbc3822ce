// Proves `users create`, `list`, `show`, `disable` and `enable` against a real api process:
// what a person reads, what --json gives a script, pages followed by --after and --all,
// an account's charges listed by `show` (a paid audio call charges its reserve at once),
// and no output ever showing the admin token or a key secret.
import { describe, expect, test } from "bun:test";
import {
  cliFor,
  createUser,
  expectNoSecretsShown,
  type LoggedRun,
  recordSecret,
  runCli,
  startApi,
} from "../testing.ts";

const api = await startApi();
const log: LoggedRun[] = [];
const cli = cliFor(api, log);
const secrets: string[] = [];

interface UserJson {
  id: string;
  name: string;
  status: string;
}

/** Every account, as `users list --all --json` gives them. */
async function everyUser(...flags: string[]): Promise<UserJson[]> {
  const listed = await cli(["users", "list", "--all", "--json", ...flags]);
  expect(listed).toMatchObject({ code: 0, stderr: "" });
  const page = JSON.parse(listed.stdout) as { data: UserJson[]; has_more: boolean };
  expect(page.has_more).toBe(false);
  return page.data;
}

/** The ids in the first column of a table on stdout. */
const tableIds = (stdout: string) =>
  stdout
    .trimEnd()
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/)[0]!);

/** A paid call with a new key of the account: audio charges its whole reserve at once. */
async function paidAudioCall(userId: string): Promise<string> {
  const created = await cli(["keys", "create", userId, "--json"]);
  const secret = recordSecret((JSON.parse(created.stdout) as { key: string }).key);
  secrets.push(secret);
  const response = await api.call("POST", "/v1/audio/generations", secret, {
    model: "sonora/speech",
    prompt: "Hello from the admin CLI tests.",
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

describe("users", () => {
  test("create prints the new account; show reads it back in USD", async () => {
    const created = await cli([
      "users",
      "create",
      "--name",
      "Ada",
      "--balance-usd",
      "12.50",
      "--discount",
      "10%",
    ]);
    expect(created).toMatchObject({ code: 0, stderr: "" });
    const id = /Created user (\d+)\./.exec(created.stdout)![1]!;
    const shown = await cli(["users", "show", id]);
    expect(shown).toMatchObject({ code: 0, stderr: "" });
    expect(shown.stdout).toMatch(/name\s+Ada\n/);
    expect(shown.stdout).toMatch(/balance\s+\$12\.50\n/);
    expect(shown.stdout).toMatch(/total spent\s+\$0\.00\n/);
    expect(shown.stdout).toMatch(/discount\s+10%\n/);
    expect(shown.stdout).toEndWith("\n\nNo charges or refunds in the last 90 days.\n");
  });

  test("--json prints the api's answers as they came, for scripts", async () => {
    const created = await cli([
      "users",
      "create",
      "--name",
      "Bob",
      "--models",
      "flare, lumen-chat",
      "--json",
    ]);
    expect(created.code).toBe(0);
    const user = JSON.parse(created.stdout);
    expect(user).toEqual({
      id: user.id,
      name: "Bob",
      balance_usd: 0,
      total_spent_usd: 0,
      discount: 0,
      status: "active",
      allowed_models: ["flare", "lumen-chat"],
    });
    const shown = await cli(["--json", "users", "show", user.id]);
    expect(JSON.parse(shown.stdout)).toEqual({ user, recent: { items: [], has_more: false } });
  });

  test("list shows the accounts made, in id order, with balance and spend", async () => {
    const ids = [
      await createUser(cli, "--name", "Listed One", "--balance-usd", "3"),
      await createUser(cli, "--name", "Listed Two", "--disabled"),
    ];
    const listed = await cli(["users", "list"]);
    expect(listed).toMatchObject({ code: 0, stderr: "" });
    expect(listed.stdout).toMatch(/^ID +NAME +STATUS +BALANCE +SPENT\n/);
    expect(listed.stdout).toMatch(
      new RegExp(`^ *${ids[0]}  Listed One +active +\\$3\\.00  \\$0\\.00$`, "m"),
    );
    expect(listed.stdout).toMatch(
      new RegExp(`^ *${ids[1]}  Listed Two +disabled +\\$0\\.00  \\$0\\.00$`, "m"),
    );
    const all = await everyUser();
    expect(tableIds(listed.stdout)).toEqual(all.map((user) => user.id));
    expect(all.map((user) => Number(user.id))).toEqual(
      all.map((user) => Number(user.id)).toSorted((a, b) => a - b),
    );
  });

  test("--limit 1 pages one account at a time; the footer names the --after of the next", async () => {
    await createUser(cli, "--name", "Paged");
    const all = (await everyUser()).map((user) => user.id);
    expect(all.length).toBeGreaterThanOrEqual(3);
    const seen: string[] = [];
    let after: string[] = [];
    for (let page = 0; page <= all.length; page++) {
      const listed = await cli(["users", "list", "--limit", "1", ...after]);
      expect(listed.code).toBe(0);
      const ids = tableIds(listed.stdout);
      expect(ids).toHaveLength(1);
      seen.push(...ids);
      if (listed.stderr === "") break;
      expect(listed.stderr).toBe(
        `More accounts follow: gw-admin users list --limit 1 --after ${ids[0]} (or --all for every page)\n`,
      );
      after = ["--after", ids[0]!];
    }
    expect(seen).toEqual(all);
    const afterLast = await cli(["users", "list", "--after", all.at(-1)!]);
    expect(afterLast).toEqual({
      code: 0,
      stdout: `No accounts after id ${all.at(-1)}.\n`,
      stderr: "",
    });
  });

  test("--all follows every page, for the table and for --json", async () => {
    const all = await everyUser();
    expect(await everyUser("--limit", "1")).toEqual(all);
    const fromSecond = await everyUser("--limit", "2", "--after", all[0]!.id);
    expect(fromSecond).toEqual(all.slice(1));
    const table = await cli(["users", "list", "--all", "--limit", "1"]);
    expect(table).toMatchObject({ code: 0, stderr: "" });
    expect(tableIds(table.stdout)).toEqual(all.map((user) => user.id));
    const onePage = JSON.parse((await cli(["users", "list", "--limit", "1", "--json"])).stdout);
    expect(onePage).toEqual({ data: [all[0]], has_more: true });
  });

  test("show lists the account's charges, newest first; a credit is not one", async () => {
    const id = await createUser(cli, "--name", "Spender", "--balance-usd", "2");
    expect((await cli(["credits", "add", id, "--usd", "1"])).code).toBe(0);
    const credited = await cli(["users", "show", id]);
    expect(credited.stdout).toMatch(/balance\s+\$3\.00\n/);
    expect(credited.stdout).toEndWith("\nNo charges or refunds in the last 90 days.\n");

    // The speech reserve: 600 seconds at $0.0011, charged when the task is accepted.
    const first = await paidAudioCall(id);
    const second = await paidAudioCall(id);
    const shown = await cli(["users", "show", id]);
    expect(shown).toMatchObject({ code: 0, stderr: "" });
    expect(shown.stdout).toMatch(/balance\s+\$1\.68\n/);
    expect(shown.stdout).toMatch(/total spent\s+\$1\.32\n/);
    const recent = shown.stdout.split("\nRecent charges and refunds, newest first:\n")[1]!;
    const row = /^\d{4}-\d\d-\d\d \d\d:\d\dZ {2}sonora\/speech {2}charge {2}\$0\.66 {2}(aud_\w+)$/;
    const lines = recent.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^TIME +MODEL +KIND +USD +REQUEST ID$/);
    expect(lines.slice(1).map((line) => row.exec(line)?.[1])).toEqual([second, first]);

    const newest = await cli(["users", "show", id, "--recent", "1"]);
    expect(newest.stdout).toContain(`charge  $0.66  ${second}\n`);
    expect(newest.stdout).not.toContain(first);
    expect(newest.stderr).toBe("(the newest 1 shown; --recent 100 shows up to 100)\n");
    const json = JSON.parse((await cli(["users", "show", id, "--recent", "1", "--json"])).stdout);
    expect(json.user).toMatchObject({ id, balance_usd: 1.68, total_spent_usd: 1.32 });
    expect(json.recent).toMatchObject({
      items: [{ request_id: second, model: "sonora/speech", kind: "charge", amount_usd: 0.66 }],
      has_more: true,
    });
  });

  test("disable and enable change the account's status", async () => {
    const id = await createUser(cli, "--name", "Paused");
    expect((await cli(["users", "disable", id])).stdout).toBe(`User ${id} is disabled.\n`);
    const shown = JSON.parse((await cli(["users", "show", id, "--json"])).stdout);
    expect(shown.user.status).toBe("disabled");
    expect((await cli(["users", "enable", id])).stdout).toBe(`User ${id} is active.\n`);
  });

  test("a missing account is the api's 404 on one line, exit 1", async () => {
    for (const json of [[], ["--json"]]) {
      const missing = await cli(["users", "show", "999999999", ...json]);
      expect(missing).toEqual({
        code: 1,
        stdout: "",
        stderr: "gw-admin: No user 999999999 (HTTP 404, not_found)\n",
      });
    }
  });

  test("a gateway without the list route shows its 404 as any refusal, exit 1", async () => {
    const older = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) =>
        Response.json(
          {
            error: {
              message: `No endpoint GET ${new URL(request.url).pathname}`,
              type: "invalid_request_error",
              code: "not_found",
            },
          },
          { status: 404 },
        ),
    });
    const listed = await runCli(["users", "list"], {
      GATEWAY_URL: older.url.href,
      ADMIN_TOKEN: "older-gateway-token-0123456789",
    });
    older.stop(true);
    expect(listed).toEqual({
      code: 1,
      stdout: "",
      stderr: "gw-admin: No endpoint GET /admin/users (HTTP 404, not_found)\n",
    });
  });

  test("bad values are usage errors, exit 2, and create nothing", async () => {
    for (const args of [
      ["users", "create"],
      ["users", "create", "--name", "x", "--balance-usd", "ten"],
      ["users", "create", "--name", "x", "--balance-usd", "-1"],
      ["users", "create", "--name", "x", "--discount", "150%"],
      ["users", "show", "abc"],
      ["users", "show"],
      ["users", "show", "1", "--recent", "0"],
      ["users", "show", "1", "--recent", "101"],
      ["users", "list", "--limit", "0"],
      ["users", "list", "--limit", "101"],
      ["users", "list", "--after", "x"],
    ]) {
      const refused = await cli(args);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe("");
      expect(refused.stderr).toStartWith("gw-admin: ");
    }
    const [row] = await api.store.sql<
      { n: bigint }[]
    >`select count(*)::bigint as n from users where name = 'x'`;
    expect(row!.n).toBe(0n);
  });

  test("no output of this file showed the admin token or a key secret after its creation", () => {
    expect(secrets).toHaveLength(2);
    expectNoSecretsShown(log, secrets);
  });
});
