// Proves `users create`, `show`, `disable` and `enable` against a real api process: what a
// person reads, what --json gives a script, and the reads the admin API lacks (`users
// list`, recent charges) said plainly rather than failing obscurely.
import { describe, expect, test } from "bun:test";
import { cliFor, createUser, startApi } from "../testing.ts";

const api = await startApi();
const cli = cliFor(api);

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
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/name\s+Ada\n/);
    expect(shown.stdout).toMatch(/balance\s+\$12\.50\n/);
    expect(shown.stdout).toMatch(/total spent\s+\$0\.00\n/);
    expect(shown.stdout).toMatch(/discount\s+10%\n/);
  });

  test("--json prints the api's answer as it came, for scripts", async () => {
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
    expect(JSON.parse(shown.stdout)).toEqual(user);
  });

  test("the admin API lacks a per-user spend read: show says so and still succeeds", async () => {
    const id = await createUser(cli, "--name", "Spender");
    const shown = await cli(["users", "show", id]);
    expect(shown.code).toBe(0);
    expect(shown.stderr).toContain(`no per-user spend read (GET /admin/users/${id}/requests)`);
  });

  test("the admin API lacks a user listing: list names the missing route, exit 1", async () => {
    const listed = await cli(["users", "list"]);
    expect(listed).toEqual({
      code: 1,
      stdout: "",
      stderr: "gw-admin: users list: this gateway's admin API has no GET /admin/users yet\n",
    });
  });

  test("disable and enable change the account's status", async () => {
    const id = await createUser(cli, "--name", "Paused");
    expect((await cli(["users", "disable", id])).stdout).toBe(`User ${id} is disabled.\n`);
    expect(JSON.parse((await cli(["users", "show", id, "--json"])).stdout).status).toBe("disabled");
    expect((await cli(["users", "enable", id])).stdout).toBe(`User ${id} is active.\n`);
  });

  test("a missing account is the api's 404 on one line, exit 1", async () => {
    const missing = await cli(["users", "show", "999999999"]);
    expect(missing).toEqual({
      code: 1,
      stdout: "",
      stderr: "gw-admin: No user 999999999 (HTTP 404, not_found)\n",
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
});
