// Proves the CLI's contract with whoever runs it, against a real api process: help on
// stdout, one clear stderr line per failure, exit 2 for a wrong command line and 1 for a
// refusal or an unreachable gateway, and the admin token taken from the environment, a
// flag or a file but never printed.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ADMIN_TOKEN, type CliRun, runCli, startApi } from "./testing.ts";

const api = await startApi();
const scratch = mkdtempSync(join(tmpdir(), "gw-admin-cli-"));
/** No local start's token file here: a missing token stays missing. */
const emptyDataDir = join(scratch, "data");
const everything: CliRun[] = [];
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function run(args: string[], env: Record<string, string>) {
  const result = await runCli(args, { DATA_DIR: emptyDataDir, ...env });
  everything.push(result);
  return result;
}

describe("help and usage errors", () => {
  test("help lists every command on stdout, exit 0", async () => {
    const help = await run(["help"], {});
    expect(help.code).toBe(0);
    for (const line of [
      "users create --name NAME",
      "credits add <user-id> --usd USD",
      "keys create <user-id>",
      "endpoints close <path>",
      "--token-file PATH",
      "--json",
    ])
      expect(help.stdout).toContain(line);
    expect((await run(["--help"], {})).stdout).toBe(help.stdout);
  });

  test("a command's help shows its flags, however it is asked for", async () => {
    const help = await run(["help", "keys", "create"], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toStartWith("Usage: gw-admin keys create <user-id> [flags]\n");
    expect(help.stdout).toContain("--budget-usd USD");
    expect((await run(["keys", "create", "--help"], {})).stdout).toBe(help.stdout);
    expect((await run(["keys", "create", "-h"], {})).stdout).toBe(help.stdout);
  });

  test("an unknown command prints the usage on stderr, exit 2", async () => {
    const unknown = await run(["frobnicate"], {});
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toStartWith("gw-admin: Unknown command 'frobnicate'\n");
    expect(unknown.stderr).toContain("Usage: gw-admin <noun> <verb>");
    const verb = await run(["keys", "frobnicate"], {});
    expect(verb.code).toBe(2);
    expect(verb.stderr).toStartWith("gw-admin: Unknown command 'keys frobnicate'\n");
    expect((await run([], {})).code).toBe(2);
    expect((await run(["users"], {})).code).toBe(2);
    expect((await run(["help", "frobnicate"], {})).code).toBe(2);
  });

  test("a bad flag or a missing argument is one line and the way to help, exit 2", async () => {
    const flag = await run(["users", "show", "1", "--colour"], {});
    expect(flag).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "gw-admin: Unknown option '--colour'\n\nRun 'gw-admin help users show' for its flags.\n",
    });
    const argument = await run(["credits", "add", "--usd", "1"], {});
    expect(argument.code).toBe(2);
    expect(argument.stderr).toStartWith("gw-admin: Missing <user-id>\n");
    const extra = await run(["users", "show", "1", "2"], {});
    expect(extra.stderr).toStartWith("gw-admin: Unexpected argument '2'\n");
  });

  test("bun run admin runs the CLI from the repository root", async () => {
    const proc = Bun.spawn(["bun", "run", "admin", "help"], {
      cwd: resolve(import.meta.dir, "../../.."),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await new Response(proc.stdout).text()).toContain("Usage: gw-admin");
    expect(await proc.exited).toBe(0);
  });
});

describe("connection and token", () => {
  test("a wrong token is the api's refusal on one line, exit 1, and is never printed", async () => {
    const wrong = "wrong-admin-token-9876543210";
    const refused = await run(["users", "show", "1"], { GATEWAY_URL: api.url, ADMIN_TOKEN: wrong });
    expect(refused).toEqual({
      code: 1,
      stdout: "",
      stderr: "gw-admin: Invalid or missing admin token (HTTP 401, invalid_admin_token)\n",
    });
    const flagged = await run(["users", "show", "1", "--token", wrong, "--url", api.url], {});
    expect(flagged.stderr).toBe(refused.stderr);
  });

  test("no token anywhere is a usage error naming the ways to give one, exit 2", async () => {
    const missing = await run(["endpoints", "list"], { GATEWAY_URL: api.url });
    expect(missing).toEqual({
      code: 2,
      stdout: "",
      stderr: "gw-admin: No admin token: set ADMIN_TOKEN, or pass --token-file PATH\n",
    });
  });

  test("--token-file reads the token; an unreadable file is named, never its content", async () => {
    const file = join(scratch, "admin-token");
    writeFileSync(file, `${ADMIN_TOKEN}\n`);
    const listed = await run(["endpoints", "list", "--token-file", file], { GATEWAY_URL: api.url });
    expect(listed).toEqual({ code: 0, stdout: "No endpoint is closed.\n", stderr: "" });
    const absent = await run(["endpoints", "list", "--token-file", join(scratch, "nope")], {
      GATEWAY_URL: api.url,
    });
    expect(absent.code).toBe(2);
    expect(absent.stderr).toBe(
      `gw-admin: Cannot read the token file ${join(scratch, "nope")} (ENOENT)\n`,
    );
    const garbled = join(scratch, "two-lines");
    writeFileSync(garbled, `${ADMIN_TOKEN}\nsecond line\n`);
    const twoLines = await run(["endpoints", "list", "--token-file", garbled], {
      GATEWAY_URL: api.url,
    });
    expect(twoLines).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "gw-admin: The admin token has spaces, line breaks or other characters a token cannot have\n",
    });
    const both = await run(["endpoints", "list", "--token-file", file, "--token", "x"], {});
    expect(both.stderr).toBe("gw-admin: Give either --token or --token-file, not both\n");
  });

  test("the local start's token file is used for a gateway on this machine only", async () => {
    const dataDir = join(scratch, "local-start");
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, "admin-token"), ADMIN_TOKEN);
    const local = await run(["endpoints", "list"], { GATEWAY_URL: api.url, DATA_DIR: dataDir });
    expect(local.code).toBe(0);
    const remote = await run(["endpoints", "list", "--url", "https://gateway.example"], {
      DATA_DIR: dataDir,
    });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toStartWith("gw-admin: No admin token");
  });

  test("--url overrides GATEWAY_URL; an unreachable gateway is one line, exit 1", async () => {
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const dead = `http://127.0.0.1:${probe.port}`;
    probe.stop(true);
    const env = { GATEWAY_URL: dead, ADMIN_TOKEN };
    const refused = await run(["endpoints", "list"], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(`^gw-admin: Cannot reach the gateway at ${dead} \\(\\w+\\)\\n$`),
    );
    expect((await run(["endpoints", "list", "--url", api.url], env)).code).toBe(0);
    const bad = await run(["endpoints", "list", "--url", "ftp://x"], env);
    expect(bad.code).toBe(2);
  });

  test("a server that is not the gateway is reported as such, exit 1", async () => {
    const proxy = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response("<html>Bad Gateway</html>", { status: 502, statusText: "Bad Gateway" }),
    });
    const answer = await run(["endpoints", "list"], { GATEWAY_URL: proxy.url.href, ADMIN_TOKEN });
    proxy.stop(true);
    expect(answer.code).toBe(1);
    expect(answer.stderr).toBe(
      "gw-admin: The server answered 502 Bad Gateway without the gateway's error shape; is --url the gateway? (HTTP 502, unexpected_answer)\n",
    );
  });

  test("no output of this file ever showed the admin token", () => {
    expect(everything.length).toBeGreaterThan(10);
    for (const result of everything) {
      expect(result.stdout).not.toContain(ADMIN_TOKEN);
      expect(result.stderr).not.toContain(ADMIN_TOKEN);
    }
  });
});
