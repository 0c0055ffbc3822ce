/**
 * POST /v1/images/generations under concurrency, end to end: the real api (child
 * process) submits each task (Redis hold, hold + task rows), real worker processes
 * (apps/worker/src/main.ts) take it from the Redis stream, call the stub OpenAI Images
 * upstream (its own process, a fixed latency like a network service), store the file
 * and settle the charge; the api answers with the image as base64. The baseline is the
 * same clients calling the stub directly, in the same run. The gateway runs twice per
 * concurrency: every client on one demo key, and the clients spread over many accounts,
 * because each settlement updates its account's row and one account serializes them.
 * Reports the latency the gateway adds, settled (completed and charged) tasks per
 * second from the bench schema, where the time goes (from the task rows' timestamps),
 * and a ledger check: every 200 answer is one charge of the exact price and the
 * balances fell by exactly their sum; a mismatch exits 1.
 *
 *   bun run apps/api/bench/images.bench.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ChildServer,
  fmtMs,
  fmtRate,
  fmtRatio,
  type LoadResult,
  openBenchStore,
  percentile,
  printTable,
  reportErrors,
  runLoad,
  startChildServer,
  stringField,
} from "@gw/benchkit";
import { LIMIT_ENV } from "@gw/ratelimit";
import type { IsolatedStore, Sql } from "@gw/store";
import { quotaToUsd } from "@gw/tariffs";
import { type BatchSizes, batchSizesIn, describeSizes } from "./images-batches.ts";
import {
  checkLedger,
  ledgerState,
  type Phases,
  phasesOf,
  type Sample,
  type Settled,
  settledIn,
  type Window,
} from "./images-ledger.ts";

const CONCURRENCY = [1, 50, 200];
const WARMUP_MS = 500;
const DURATION_MS = 3_000;
/** Per run, after warm-up. */
const MAX_REQUESTS = 20_000;
const REQUEST_TIMEOUT_MS = 20_000;
/** The stub upstream's latency per image request, like a nearby network service. */
const STUB_LATENCY_MS = 20;
/** The second gateway run spreads its clients over this many accounts, one key each. */
const SPREAD_ACCOUNTS = 50;
const WORKERS = 2;
/**
 * Tasks one worker runs at once. A task waiting on its upstream holds no Postgres
 * connection, so this is not bounded by the pool.
 */
const WORKER_CONCURRENCY = 64;
/** Each worker's Postgres pool (PG_POOL_MAX, as the worker's config reads it). */
const WORKER_POOL_MAX = 12;
/** The api's Postgres pool (PG_POOL_MAX, as main.ts reads it). */
const API_POOL_MAX = 16;
const BENCH_POOL_MAX = 2;
/** The most Postgres connections the bench's processes open together (server: 100). */
const CONNECTIONS = WORKERS * WORKER_POOL_MAX + API_POOL_MAX + BENCH_POOL_MAX;
/** gpt-image-1, quality low, 1024x1024: $0.011. */
const PRICE_QUOTA = 5_500n;
/** How long the ledger check waits for tasks still running after the last run. */
const SETTLE_WAIT_MS = 15_000;

const ADMIN_TOKEN = "bench-admin-token-0123456789";
const LINK_SECRET = "bench-link-secret-0123456789abcdef-0123";
const PROMPT = "a lighthouse on a cliff at dusk";
const STUB_BODY = JSON.stringify({
  model: "gpt-image-1",
  prompt: PROMPT,
  n: 1,
  response_format: "b64_json",
});
const GATEWAY_BODY = JSON.stringify({
  model: "gpt-image-1",
  prompt: PROMPT,
  quality: "low",
  response_format: "b64_json",
});

interface Target {
  name: string;
  url: string;
  /** Operation `i` uses `keys[i % keys.length]`. */
  keys: string[];
  body: string;
}

const wallNow = () => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------------------------------
// Processes and cleanup

const children: ChildServer<unknown>[] = [];
let store: IsolatedStore | null = null;
let filesDir: string | null = null;

/** Stops every child, drops the schema and prefix, removes the files; safe to call twice. */
async function cleanup(): Promise<boolean> {
  let clean = true;
  await Promise.allSettled(children.splice(0).map((child) => child.stop()));
  try {
    await store?.close();
  } catch (error) {
    console.error(`images bench: cleanup of ${store?.schema} failed:`, error);
    clean = false;
  }
  if (filesDir) rmSync(filesDir, { recursive: true, force: true });
  return clean;
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void cleanup().then(() => process.exit(130));
  });
}

async function startChild<T>(file: string, parse: (value: unknown) => T, env = {}): Promise<T> {
  const child = await startChildServer(join(import.meta.dir, file), parse, { env });
  children.push(child);
  return child.info;
}

/** Every RATE_LIMIT_* window off: this bench measures the path, not the limiter. */
function limitsOff(): Record<string, string> {
  return Object.fromEntries(Object.values(LIMIT_ENV).map(({ name }) => [name, "off"]));
}

/** The stub, then the api and the workers over the bench's schema, prefix and files. */
async function startStack(bench: IsolatedStore, dir: string) {
  const stub = await startChild(
    "images-stub-server.ts",
    (value) => ({ url: stringField(value, "url"), apiKey: stringField(value, "apiKey") }),
    { BENCH_STUB_LATENCY_MS: String(STUB_LATENCY_MS) },
  );
  const shared = {
    DATABASE_URL: bench.databaseUrl,
    DATABASE_SCHEMA: bench.schema,
    REDIS_URL: bench.redisUrl,
    REDIS_PREFIX: bench.prefix,
    STORAGE: "local",
    STORAGE_DIR: dir,
    RESULT_LINK_SECRET: LINK_SECRET,
  };
  const worker = {
    ...shared,
    WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
    PG_POOL_MAX: String(WORKER_POOL_MAX),
    PROVIDER_ROUTES: "gpt-image-1=openai",
    UPSTREAM_OPENAI_BASE_URL: stub.url,
    UPSTREAM_OPENAI_API_KEY: stub.apiKey,
  };
  const api = { ...shared, ...limitsOff(), ADMIN_TOKEN, PG_POOL_MAX: String(API_POOL_MAX) };
  const started = await Promise.allSettled([
    startChild("images-api-server.ts", (value) => stringField(value, "url"), api),
    ...Array.from({ length: WORKERS }, () =>
      startChild("images-worker.ts", (value) => stringField(value, "worker"), worker),
    ),
  ]);
  for (const result of started) if (result.status === "rejected") throw result.reason;
  const [apiUrl] = started as PromiseFulfilledResult<string>[];
  return { stub, apiUrl: apiUrl!.value };
}

// ---------------------------------------------------------------------------------------
// Accounts and requests

/** The most gateway requests one variant's runs can make: each takes at least the stub's latency. */
function requestBound(): bigint {
  let bound = 1;
  for (const concurrency of CONCURRENCY) {
    const byTime = concurrency * (Math.ceil((WARMUP_MS + DURATION_MS) / STUB_LATENCY_MS) + 1);
    const byCap = MAX_REQUESTS + concurrency * (Math.ceil(WARMUP_MS / STUB_LATENCY_MS) + 1);
    bound += Math.min(byTime, byCap);
  }
  return BigInt(bound);
}

async function admin(apiUrl: string, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${apiUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (response.status !== 201)
    throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/**
 * Demo accounts made through the admin API, each with one key (rpm_limit 0) and a
 * balance that covers every request a variant can make, even all on that one account.
 */
async function createKeys(apiUrl: string, count: number, balanceUsd: number): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    const user = await admin(apiUrl, "/admin/users", {
      name: `images bench ${i}`,
      balance_usd: balanceUsd,
      discount: 0,
    });
    const key = await admin(apiUrl, "/admin/keys", {
      user_id: stringField(user, "id"),
      name: "bench",
      rpm_limit: 0,
    });
    keys.push(stringField(key, "key"));
  }
  return keys;
}

/** One request; the body is read in full, like a client that wants the image. */
async function call(target: Target, i: number): Promise<{ headers: Headers; text: string }> {
  const response = await fetch(target.url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${target.keys[i % target.keys.length]}`,
      "content-type": "application/json",
    },
    body: target.body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${body.slice(0, 160)}`);
  return { headers: response.headers, text: body };
}

/** Before the load: both answer an image, and the gateway charges the expected price. */
async function probe(stub: Target, gateway: Target): Promise<void> {
  const image = async (target: Target) => {
    const { text } = await call(target, 0);
    const parsed = JSON.parse(text) as { data?: { b64_json?: unknown }[]; billing?: unknown };
    if (typeof parsed.data?.[0]?.b64_json !== "string")
      throw new Error(`${target.name}: no b64_json image in ${text.slice(0, 200)}`);
    return parsed;
  };
  await image(stub);
  const { billing } = await image(gateway);
  const quota = (billing as { quota?: unknown } | undefined)?.quota;
  if (typeof quota !== "number" || BigInt(quota) !== PRICE_QUOTA)
    throw new Error(`expected a charge of ${PRICE_QUOTA} quota, got ${JSON.stringify(billing)}`);
}

/** Postgres's connection limit and use now, to show the bench's processes fit beside them. */
async function connectionsLine(sql: Sql): Promise<string> {
  const [row] = await sql<{ max: number; used: number }[]>`
    select current_setting('max_connections')::int as max,
      (select count(*)::int from pg_stat_activity where backend_type = 'client backend') as used`;
  const free = row!.max - row!.used;
  if (CONNECTIONS > free)
    console.error(
      `  ! the bench may open ${CONNECTIONS} Postgres connections, only ${free} are free`,
    );
  return `up to ${CONNECTIONS} Postgres connections (server: ${row!.max}, ${row!.used} in use before)`;
}

// ---------------------------------------------------------------------------------------
// Runs

interface GatewayRun {
  name: string;
  result: LoadResult;
  window: Window;
  settled: Settled;
  phases: Phases;
  batches: { submit: BatchSizes; settle: BatchSizes };
}

interface Run {
  concurrency: number;
  base: LoadResult;
  gateways: GatewayRun[];
}

const load = (concurrency: number, op: (i: number) => Promise<void>) =>
  runLoad({ concurrency, durationMs: DURATION_MS, warmupMs: WARMUP_MS, maxOps: MAX_REQUESTS, op });

/** One gateway run; every 200 is counted in `answered`, warm-up included, for the ledger check. */
async function measureGateway(
  sql: Sql,
  gateway: Target,
  concurrency: number,
  answered: { count: number },
): Promise<GatewayRun> {
  const samples: Sample[] = [];
  const fromMs = wallNow() + WARMUP_MS;
  const result = await load(concurrency, async (i) => {
    const startMs = wallNow();
    const { headers } = await call(gateway, i);
    answered.count++;
    const taskId = headers.get("x-task-id");
    if (startMs >= fromMs && taskId) samples.push({ taskId, startMs, endMs: wallNow() });
  });
  const window = { fromMs, toMs: fromMs + result.seconds * 1000 };
  const settled = await settledIn(sql, window);
  const phases = await phasesOf(sql, samples);
  const batches = await batchSizesIn(sql, window);
  return { name: gateway.name, result, window, settled, phases, batches };
}

// ---------------------------------------------------------------------------------------
// Tables

function printLatency(runs: Run[]): void {
  const row = (name: string, result: LoadResult) => [
    name,
    String(result.concurrency),
    fmtRate(result.opsPerSecond),
    fmtMs(result.p50Ms),
    fmtMs(result.p99Ms),
    fmtRate(result.ok),
    String(result.errors),
  ];
  const rows: string[][] = [];
  for (const { base, gateways } of runs) {
    rows.push(row("baseline: stub direct", base));
    for (const gateway of gateways) rows.push(row(gateway.name, gateway.result));
  }
  printTable(
    `Image generation, closed loop (stub upstream: ${STUB_LATENCY_MS} ms, cached 64x64 PNG)`,
    ["target", "concurrency", "req/s", "p50 ms", "p99 ms", "ok", "errors"],
    rows,
  );
  console.log(
    "  req/s: answers with 200 per second in the measured window; p50/p99 ms: client-side latency of\n" +
      "  those answers; ok: how many; errors: requests that failed, timed out or were not 200.",
  );
}

function printAdded(runs: Run[]): void {
  const rows = runs.flatMap(({ concurrency, base, gateways }) =>
    gateways.map(({ name, result }) => [
      name,
      String(concurrency),
      fmtMs(result.p50Ms - base.p50Ms),
      fmtMs(result.p99Ms - base.p99Ms),
      fmtRatio(result.p50Ms, base.p50Ms),
      fmtRatio(result.p99Ms, base.p99Ms),
      fmtRatio(result.opsPerSecond, base.opsPerSecond),
    ]),
  );
  printTable(
    "Latency added by the gateway (gateway minus baseline at the same concurrency)",
    [
      "target",
      "concurrency",
      "added p50 ms",
      "added p99 ms",
      "p50 ratio",
      "p99 ratio",
      "req/s ratio",
    ],
    rows,
  );
  console.log(
    "  added p50/p99 ms: gateway percentile minus baseline percentile; ratios: gateway over baseline.",
  );
}

function printSettled(runs: Run[]): void {
  const rows = runs.flatMap(({ concurrency, base, gateways }) =>
    gateways.map(({ name, result, window, settled }) => {
      const seconds = (window.toMs - window.fromMs) / 1000;
      return [
        name,
        String(concurrency),
        seconds.toFixed(2),
        fmtRate(result.opsPerSecond),
        fmtRate(settled.settled),
        fmtRate(settled.charges),
        fmtRate(settled.settled / seconds),
        fmtRate(base.opsPerSecond),
        fmtRatio(settled.settled / seconds, base.opsPerSecond),
      ];
    }),
  );
  printTable(
    "Settlement in each gateway run's measured window (counted in the bench schema)",
    [
      "target",
      "concurrency",
      "window s",
      "answers/s",
      "settled",
      "charges",
      "settled/s",
      "baseline req/s",
      "settled/baseline",
    ],
    rows,
  );
  console.log(
    "  window s: the measured window; answers/s: 200 answers per second; settled: tasks completed in the\n" +
      "  window that carry their charge (warm-up tasks finishing late included); charges: charge entries\n" +
      "  written in the window; settled/s: settled tasks per second; baseline req/s: the stub called\n" +
      "  directly at the same concurrency; settled/baseline: the ratio of the two.",
  );
}

function printBatches(runs: Run[]): void {
  const rows: string[][] = [];
  for (const { concurrency, gateways } of runs) {
    for (const { name, batches } of gateways) {
      rows.push([name, String(concurrency), "submit", ...describeSizes(batches.submit)]);
      rows.push([name, String(concurrency), "settle", ...describeSizes(batches.settle)]);
    }
  }
  printTable(
    "Batch sizes: tasks per Postgres transaction in each measured window",
    [
      "target",
      "concurrency",
      "write",
      "transactions",
      "mean",
      "p50",
      "p90",
      "max",
      "tasks in >= 8",
    ],
    rows,
  );
  console.log(
    "  submit: group-commit transactions inserting tasks + holds; settle: settlement transactions\n" +
      "  completing tasks + posting holds (tasks sharing one transaction's now()); tasks in >= 8: the\n" +
      "  share of tasks written by a transaction of at least 8.",
  );
}

function printPhases(runs: Run[]): void {
  const rows: string[][] = [];
  for (const { concurrency, base, gateways } of runs) {
    for (const { name, phases } of gateways) {
      for (const p of [50, 99]) {
        rows.push([
          name,
          String(concurrency),
          `p${p}`,
          fmtMs(percentile(phases.submit, p)),
          fmtMs(percentile(phases.queue, p)),
          fmtMs(percentile(phases.run, p)),
          fmtMs(percentile(phases.answer, p)),
          fmtMs(p === 50 ? base.p50Ms : base.p99Ms),
        ]);
      }
    }
  }
  printTable(
    "Where a gateway request's time goes (measured-window requests; each phase's own percentile)",
    [
      "target",
      "concurrency",
      "stat",
      "submit ms",
      "queue ms",
      "run ms",
      "answer ms",
      "upstream ms",
    ],
    rows,
  );
  console.log(
    "  submit: client sends -> the group commit holding its task begins (HTTP, auth, validation, Redis\n" +
      "  admission); queue: -> a worker starts it (the commit, hold confirm, XADD, XREADGROUP); run: ->\n" +
      "  its settlement batch begins (upstream call, file write, waiting for the batch); answer: -> the\n" +
      "  client has the body (charge, commit, announcement with the image, api wakes and answers);\n" +
      "  upstream ms: the baseline's latency at the same concurrency.",
  );
}

// ---------------------------------------------------------------------------------------

async function main(): Promise<number> {
  store = await openBenchStore({ poolMax: BENCH_POOL_MAX });
  filesDir = mkdtempSync(join(tmpdir(), "gw-bench-images-"));
  const connections = await connectionsLine(store.sql);
  const { stub, apiUrl } = await startStack(store, filesDir);
  const balanceUsd = Math.ceil(quotaToUsd(requestBound() * PRICE_QUOTA)) + 1;
  const [demoKey, ...spreadKeys] = await createKeys(apiUrl, 1 + SPREAD_ACCOUNTS, balanceUsd);
  const url = `${apiUrl}/v1/images/generations`;
  const baseline: Target = {
    name: "baseline",
    url: `${stub.url}/images/generations`,
    keys: [stub.apiKey],
    body: STUB_BODY,
  };
  const gateways: Target[] = [
    { name: "gateway, 1 account", url, keys: [demoKey!], body: GATEWAY_BODY },
    { name: `gateway, ${SPREAD_ACCOUNTS} accounts`, url, keys: spreadKeys, body: GATEWAY_BODY },
  ];
  const balanceBefore = (await ledgerState(store.sql)).balance;
  await probe(baseline, gateways[0]!);
  const answered = { count: 1 };

  console.log(
    `images bench: POST images/generations (gpt-image-1, low, b64_json), ${DURATION_MS} ms per run ` +
      `after ${WARMUP_MS} ms warm-up, at most ${MAX_REQUESTS} measured requests per run, concurrency ` +
      `${CONCURRENCY.join("/")}; stub upstream latency ${STUB_LATENCY_MS} ms; ${WORKERS} workers x ` +
      `${WORKER_CONCURRENCY} tasks, api pool ${API_POOL_MAX}, ${connections}; each account holds ` +
      `$${balanceUsd} (every request of a variant at $${quotaToUsd(PRICE_QUOTA)}); ` +
      `${navigator.hardwareConcurrency} cores`,
  );
  let failures = 0;
  const runs: Run[] = [];
  for (const concurrency of CONCURRENCY) {
    const base = await load(concurrency, async (i) => {
      await call(baseline, i);
    });
    failures += reportErrors(baseline.name, base);
    const measured: GatewayRun[] = [];
    for (const gateway of gateways) {
      const run = await measureGateway(store.sql, gateway, concurrency, answered);
      failures += reportErrors(gateway.name, run.result);
      measured.push(run);
    }
    runs.push({ concurrency, base, gateways: measured });
    process.stdout.write(".");
  }
  process.stdout.write("\n");
  printLatency(runs);
  printAdded(runs);
  printSettled(runs);
  printBatches(runs);
  printPhases(runs);

  const ledger = await checkLedger(store.sql, {
    balanceBefore,
    answered: answered.count,
    priceQuota: PRICE_QUOTA,
    waitMs: SETTLE_WAIT_MS,
  });
  console.log(`\n${ledger.lines.join("\n")}`);
  if (!ledger.ok) return 1;
  if (failures > 0) {
    console.error(`images bench: ${failures} failed request(s)`);
    return 1;
  }
  return 0;
}

let code = 1;
try {
  code = await main();
} catch (error) {
  console.error("images bench failed:", error);
} finally {
  if (!(await cleanup())) code = 1;
}
process.exit(code);
