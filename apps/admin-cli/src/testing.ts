import { afterAll, expect } from "bun:test";
import { appendFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createTestStore, type TestStore } from "@gw/store/testing";

export const ADMIN_TOKEN = "cli-test-admin-token-0123456789";
const API_MAIN = resolve(import.meta.dir, "../../api/src/main.ts");
const CLI_MAIN = resolve(import.meta.dir, "main.ts");
/** Migrations and the catalog load before the api listens; a slow CI machine gets this long. */
const START_TIMEOUT_MS = 30_000;

export interface RunningApi {
  url: string;
  store: TestStore;
  /** Lines the api printed, for a failure message. */
  output(): string;
  /** A call as a client of the gateway makes it, with an API key (and a JSON body). */
  call(method: string, path: string, key: string, body?: unknown): Promise<Response>;
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

/**
 * The real api (`apps/api/src/main.ts`) as a child process over this file's own Postgres
 * schema and Redis prefix; stopped, then the schema dropped, when the file's tests end.
 */
export async function startApi(): Promise<RunningApi> {
  let proc: ReturnType<typeof Bun.spawn> | undefined;
  let text = "";
  let drained: Promise<unknown> = Promise.resolve();
  // Registered before the store's own cleanup, so the api stops before its schema goes.
  afterAll(async () => {
    if (!proc) return;
    proc.kill("SIGTERM");
    const exited = await Promise.race([proc.exited, Bun.sleep(5_000).then(() => null)]);
    if (exited === null) proc.kill("SIGKILL");
    await drained;
    // The test runner searches every log of the run for the secrets the tests made.
    const logDir = process.env.GW_TEST_LOG_DIR;
    if (logDir) appendFileSync(join(logDir, `admin-cli-api-${proc.pid}.log`), text);
  });
  const store = await createTestStore();
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  proc = Bun.spawn(["bun", "run", API_MAIN], {
    env: {
      ...process.env,
      NODE_ENV: "test",
      DATABASE_URL: store.databaseUrl,
      DATABASE_SCHEMA: store.schema,
      REDIS_URL: store.redisUrl,
      REDIS_PREFIX: store.prefix,
      PORT: String(port),
      ADMIN_TOKEN,
      RESULT_LINK_SECRET: "cli-test-link-secret-0123456789abcdef",
      PUBLIC_HOSTS: "127.0.0.1",
      // Every call reads the key's row, so a disabled key is refused on the very next call.
      AUTH_CACHE_MS: "0",
      API_SHUTDOWN_GRACE_MS: "1000",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  };
  drained = Promise.all([
    collect(proc.stdout as ReadableStream<Uint8Array>),
    collect(proc.stderr as ReadableStream<Uint8Array>),
  ]);
  // Ready when the admin API answers: the log wording may change, the API may not.
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`the api exited at start:\n${text}`);
    const answer = await fetch(`${url}/admin/endpoints`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    }).catch(() => undefined);
    if (answer?.status === 200) break;
    if (Date.now() > deadline) throw new Error(`the api did not start in time:\n${text}`);
    await Bun.sleep(100);
  }
  return {
    url,
    store,
    output: () => text,
    call: (method, path, key, body) =>
      fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
  };
}

/**
 * The CLI as a person runs it: a child process, with only the environment given here
 * (never this process's ADMIN_TOKEN or GATEWAY_URL).
 */
export async function runCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const proc = Bun.spawn(["bun", "run", CLI_MAIN, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NO_COLOR: "1", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

export type Cli = (args: string[], env?: Record<string, string>) => Promise<CliRun>;

/** A CLI run with the command line that made it. */
export interface LoggedRun extends CliRun {
  args: string[];
}

/**
 * `runCli` pointed at a running api with the admin token in the environment; every run
 * goes into `log` when one is given, for checks over all of a file's output.
 */
export function cliFor(api: RunningApi, log?: LoggedRun[]): Cli {
  return async (args, env = {}) => {
    const result = await runCli(args, { GATEWAY_URL: api.url, ADMIN_TOKEN, ...env });
    log?.push({ args, ...result });
    return result;
  };
}

/**
 * Checks a file's CLI output: the admin token never shows, and each key secret (in
 * whole or its middle) shows in exactly one run, the `keys create` that made it.
 */
export function expectNoSecretsShown(log: LoggedRun[], secrets: string[]): void {
  const output = (run: CliRun) => run.stdout + run.stderr;
  for (const run of log) expect(output(run)).not.toContain(ADMIN_TOKEN);
  for (const secret of secrets) {
    const shownBy = log.filter(
      (run) => output(run).includes(secret) || output(run).includes(secret.slice(8, 40)),
    );
    // Named by command: exactly one run showed it, and that run created it.
    expect(shownBy.map((run) => run.args.slice(0, 2).join(" "))).toEqual(["keys create"]);
  }
}

/**
 * Adds a key secret the CLI printed to the test runner's list (GW_TEST_SECRETS_FILE),
 * which it searches every log of the run for afterwards.
 */
export function recordSecret(secret: string): string {
  const file = process.env.GW_TEST_SECRETS_FILE;
  if (file) appendFileSync(file, `${secret}\n`);
  return secret;
}

/** A new account made through the CLI; answers its id. */
export async function createUser(cli: Cli, ...flags: string[]): Promise<string> {
  const created = await cli(["users", "create", "--json", ...flags]);
  if (created.code !== 0) throw new Error(`users create failed: ${created.stderr}`);
  return (JSON.parse(created.stdout) as { id: string }).id;
}
