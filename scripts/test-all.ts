/**
 * Runs every package's tests through Turborepo (with --continue, so one red package
 * does not hide the others), echoes their output, and ends with the one line CI reads:
 * `N passed, N failed`, summed over all packages from bun test's ` N pass` / ` N fail`.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ensureInstalled } from "./ensure-install.ts";

const PASS_OR_FAIL = /(?:^|:\s)\s*(\d+) (pass|fail)\s*$/;
const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

function count(text: string, totals: { pass: number; fail: number }): void {
  for (const line of text.split("\n")) {
    const match = PASS_OR_FAIL.exec(line.replace(ANSI_COLOUR, ""));
    if (match) totals[match[2] as "pass" | "fail"] += Number(match[1]);
  }
}

async function pump(
  stream: ReadableStream<Uint8Array>,
  sink: NodeJS.WriteStream,
  collected: string[],
): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true });
    collected.push(text);
    sink.write(text);
  }
}

const root = resolve(import.meta.dir, "..");
ensureInstalled(root, "test");

// Tests talk to a real Postgres and Redis: the configured ones, the local default
// ports, or (on a machine with neither) embedded PGlite and a spawned redis-server.
// TEST_EMBEDDED=1 takes the embedded path even where real services answer.
const { BackendError, resolveBackends } = await import("@gw/store/embedded");
const forceEmbedded = process.env.TEST_EMBEDDED === "1";
const scratch = mkdtempSync(join(tmpdir(), "gw-test-"));
let backends: Awaited<ReturnType<typeof resolveBackends>>;
try {
  backends = await resolveBackends(
    {
      NODE_ENV: "test",
      DATABASE_URL: forceEmbedded ? "" : process.env.TEST_DATABASE_URL || process.env.DATABASE_URL,
      REDIS_URL: forceEmbedded ? "" : process.env.TEST_REDIS_URL || process.env.REDIS_URL,
    },
    {
      dataDir: scratch,
      poolMax: 100,
      ...(forceEmbedded
        ? {
            defaults: {
              databaseUrl: "postgres://postgres@127.0.0.1:1/x",
              redisUrl: "redis://127.0.0.1:1",
            },
          }
        : {}),
    },
  );
} catch (error) {
  if (!(error instanceof BackendError)) throw error;
  console.error(`[test] ${error.message}`);
  console.log("0 passed, 1 failed");
  process.exit(1);
}
const embedded = backends.postgres === "embedded-pglite";

// Every log line of the run's test apis and workers lands in logDir; every key secret the
// tests made is listed in secretsFile. After the run, no secret may appear in any log.
const logDir = join(scratch, "logs");
mkdirSync(logDir);
const secretsFile = join(scratch, "secrets.txt");
writeFileSync(secretsFile, "");

const extra = process.argv.slice(2);
// Embedded PGlite is one session for all connections, so test files take turns there.
const concurrency = embedded ? "--concurrency=1" : "--concurrency=2";
const child = Bun.spawn(
  ["bunx", "turbo", "run", "test", "--continue", concurrency, "--output-logs=full", ...extra],
  {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
    env: {
      ...process.env,
      TEST_DATABASE_URL: backends.databaseUrl,
      TEST_REDIS_URL: backends.redisUrl,
      TEST_EMBEDDED_PG: embedded ? "1" : "0",
      TURBO_TELEMETRY_DISABLED: "1",
      FORCE_COLOR: "0",
      GW_TEST_LOG_DIR: logDir,
      GW_TEST_SECRETS_FILE: secretsFile,
    },
  },
);
const collected: string[] = [];
await Promise.all([
  pump(child.stdout, process.stdout, collected),
  pump(child.stderr, process.stderr, collected),
]);
const exitCode = await child.exited;
await backends.stop();
const leaks = secretsInLogs(collected.join(""));
const logFiles = readdirSync(logDir).length;
const secretsChecked = readSecrets().length;
rmSync(scratch, { recursive: true, force: true });

function readSecrets(): string[] {
  try {
    return [
      ...new Set(
        readFileSync(secretsFile, "utf8")
          .split("\n")
          .filter((line) => line.length >= 16),
      ),
    ];
  } catch {
    return [];
  }
}

/** Where (a log file, or the test output) any recorded secret appears. */
function secretsInLogs(output: string): string[] {
  const secrets = readSecrets();
  if (secrets.length === 0) return [];
  const places: string[] = [];
  const sources: [string, string][] = [["the test output", output]];
  for (const file of readdirSync(logDir))
    sources.push([`log ${file}`, readFileSync(join(logDir, file), "utf8")]);
  for (const [name, text] of sources)
    if (secrets.some((secret) => text.includes(secret))) places.push(name);
  return places;
}

const totals = { pass: 0, fail: 0 };
count(collected.join(""), totals);
if (leaks.length > 0) {
  for (const leak of leaks)
    console.error(`[test] FAIL: a key secret made by the tests appears in ${leak}`);
  totals.fail += 1;
} else {
  console.log(
    `[test] no secret in the logs: ${secretsChecked} secrets checked against ${logFiles} log files and the test output`,
  );
}
// A package that crashed before printing its summary still counts as a failure.
if (exitCode !== 0 && totals.fail === 0) totals.fail = 1;
console.log(`${totals.pass} passed, ${totals.fail} failed`);
process.exit(totals.fail > 0 || exitCode !== 0 ? 1 : 0);
