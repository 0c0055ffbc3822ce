/**
 * POST /v1/images/generations under concurrency, end to end: the real api (child
 * process) submits each task (hold + task row), real worker processes take it from the
 * Redis stream, call the stub OpenAI Images upstream (its own process, a fixed latency
 * like a network service), store the file and settle the charge; the api answers with
 * the image as base64. The baseline is the same clients calling the stub directly, in
 * the same run. Reports latency added by the gateway, settled (completed and charged)
 * tasks per second from the bench schema, where the added time goes (from the task
 * rows' timestamps), and a ledger check: every 200 answer is one charge of the exact
 * price and the balance fell by exactly their sum; a mismatch exits 1.
 *
 *   bun run apps/api/bench/images.bench.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LIMIT_ENV } from "@gw/ratelimit";
import type { IsolatedStore, Sql } from "@gw/store";
import { quotaToUsd } from "@gw/tariffs";
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
} from "../../../scripts/bench-lib.ts";

const CONCURRENCY = [1, 50, 200];
const WARMUP_MS = 500;
const DURATION_MS = 3_000;
/** Per run, after warm-up. */
const MAX_REQUESTS = 20_000;
const REQUEST_TIMEOUT_MS = 20_000;
/** The stub upstream's latency per image request, like a nearby network service. */
const STUB_LATENCY_MS = 20;
const WORKERS = 2;
/** Tasks one worker runs at once; main.ts sizes its Postgres pool from it (+2). */
const WORKER_CONCURRENCY = 16;
/** The api's Postgres pool (PG_POOL_MAX, as main.ts reads it). */
const API_POOL_MAX = 16;
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
  key: string;
  body: string;
}

/** One gateway answer with 200: when the client sent it and had the body, wall-clock ms. */
interface Sample {
  taskId: string;
  startMs: number;
  endMs: number;
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
// Account and requests

/** The most gateway requests the runs can make: each takes at least the stub's latency. */
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

/** A demo account whose balance covers every request the runs can make, and its key. */
async function createAccount(apiUrl: string) {
  const balanceUsd = Math.ceil(quotaToUsd(requestBound() * PRICE_QUOTA)) + 1;
  const user = await admin(apiUrl, "/admin/users", {
    name: "images bench",
    balance_usd: balanceUsd,
    discount: 0,
  });
  const userId = stringField(user, "id");
  const key = await admin(apiUrl, "/admin/keys", { user_id: userId, name: "bench", rpm_limit: 0 });
  return { userId, key: stringField(key, "key"), balanceUsd };
}

async function post(target: Target): Promise<Response> {
  return fetch(target.url, {
    method: "POST",
    headers: { authorization: `Bearer ${target.key}`, "content-type": "application/json" },
    body: target.body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
}

/** One request; the body is read in full, like a client that wants the image. */
async function call(target: Target): Promise<{ response: Response; body: string }> {
  const response = await post(target);
  const body = await response.text();
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${body.slice(0, 160)}`);
  return { response, body };
}

/** Before the load: both answer an image, and the gateway charges the expected price. */
async function probe(stub: Target, gateway: Target): Promise<void> {
  const first = (text: string) => {
    const parsed = JSON.parse(text) as { data?: { b64_json?: unknown }[]; billing?: unknown };
    if (typeof parsed.data?.[0]?.b64_json !== "string")
      throw new Error(`no b64_json image in ${text.slice(0, 200)}`);
    return parsed;
  };
  first((await call(stub)).body);
  const { billing } = first((await call(gateway)).body);
  const quota = (billing as { quota?: unknown } | undefined)?.quota;
  if (BigInt(Number(quota ?? 0)) !== PRICE_QUOTA)
    throw new Error(
      `expected a charge of ${PRICE_QUOTA} quota, billing was ${JSON.stringify(billing)}`,
    );
}

// ---------------------------------------------------------------------------------------
// What the bench schema says about a measured window

interface Window {
  fromMs: number;
  toMs: number;
}

interface Settled {
  /** Completed tasks with their charge, finished inside the window. */
  settled: number;
  /** Charge entries written inside the window. */
  charges: number;
}

async function settledIn(sql: Sql, window: Window): Promise<Settled> {
  const from = new Date(window.fromMs);
  const to = new Date(window.toMs);
  const [row] = await sql<{ settled: bigint; charges: bigint }[]>`
    select
      (select count(*) from tasks t
        where t.status = 'completed' and t.finished_at >= ${from} and t.finished_at < ${to}
          and exists (select 1 from ledger_entries l where l.hold_id = t.id and l.kind = 'charge')
      ) as settled,
      (select count(*) from ledger_entries
        where kind = 'charge' and created_at >= ${from} and created_at < ${to}) as charges`;
  return { settled: Number(row!.settled), charges: Number(row!.charges) };
}

/** Per-phase durations (ms) of the sampled requests, from the client's clock and the task rows. */
interface Phases {
  submit: Float64Array;
  queue: Float64Array;
  run: Float64Array;
  answer: Float64Array;
}

async function phasesOf(sql: Sql, samples: Sample[]): Promise<Phases> {
  const rows = await sql<{ id: string; created: number; started: number; finished: number }[]>`
    select id,
      extract(epoch from created_at)::float8 * 1000 as created,
      extract(epoch from started_at)::float8 * 1000 as started,
      extract(epoch from finished_at)::float8 * 1000 as finished
    from tasks where id = any(${samples.map((sample) => sample.taskId)})`;
  const byId = new Map(rows.map((row) => [row.id, row]));
  const phases = { submit: [] as number[], queue: [] as number[], run: [], answer: [] } as Record<
    keyof Phases,
    number[]
  >;
  for (const sample of samples) {
    const row = byId.get(sample.taskId);
    if (!row) continue;
    phases.submit.push(row.created - sample.startMs);
    phases.queue.push(row.started - row.created);
    phases.run.push(row.finished - row.started);
    phases.answer.push(sample.endMs - row.finished);
  }
  const sorted = (values: number[]) => Float64Array.from(values).sort();
  return {
    submit: sorted(phases.submit),
    queue: sorted(phases.queue),
    run: sorted(phases.run),
    answer: sorted(phases.answer),
  };
}

// ---------------------------------------------------------------------------------------
// The ledger check

interface LedgerState {
  balance: bigint;
  charges: bigint;
  chargedQuota: bigint;
  completed: bigint;
  failed: bigint;
  pendingHolds: bigint;
  active: bigint;
}

async function ledgerState(sql: Sql, userId: bigint): Promise<LedgerState> {
  const [row] = await sql<LedgerState[]>`
    select u.balance_quota as balance,
      (select count(*) from ledger_entries where user_id = u.id and kind = 'charge') as charges,
      (select coalesce(sum(-delta_quota), 0)::bigint from ledger_entries
        where user_id = u.id and kind = 'charge') as "chargedQuota",
      (select count(*) from tasks where user_id = u.id and status = 'completed') as completed,
      (select count(*) from tasks where user_id = u.id and status = 'failed') as failed,
      (select count(*) from holds where user_id = u.id and state = 'pending') as "pendingHolds",
      (select count(*) from tasks where user_id = u.id and status in ('queued', 'processing'))
        as active
    from users u where u.id = ${userId}`;
  if (!row) throw new Error(`no user ${userId}`);
  return row;
}

/**
 * Waits (bounded) for running tasks to end, then checks that each 200 answer is one
 * completed task and one charge of the exact price, that the balance fell by exactly
 * their sum, and that nothing is still held. Answers the lines to print and the verdict.
 */
async function checkLedger(
  sql: Sql,
  userId: bigint,
  balanceBefore: bigint,
  answered: number,
): Promise<{ ok: boolean; lines: string[] }> {
  const deadline = Date.now() + SETTLE_WAIT_MS;
  let state = await ledgerState(sql, userId);
  while (state.active > 0n && Date.now() < deadline) {
    await Bun.sleep(100);
    state = await ledgerState(sql, userId);
  }
  const n = BigInt(answered);
  const decrease = balanceBefore - state.balance;
  const checks: [string, boolean][] = [
    [`${answered} answers with 200 = ${state.charges} charges`, state.charges === n],
    [`= ${state.completed} completed tasks`, state.completed === n],
    [
      `balance fell by ${decrease} quota = sum of charges ${state.chargedQuota}`,
      decrease === state.chargedQuota,
    ],
    [`= ${answered} x ${PRICE_QUOTA} quota`, state.chargedQuota === n * PRICE_QUOTA],
    [`${state.pendingHolds} pending holds`, state.pendingHolds === 0n],
    [`${state.active} tasks still queued or running`, state.active === 0n],
  ];
  const ok = checks.every(([, passed]) => passed);
  const usd = `$${quotaToUsd(decrease).toFixed(3)}`;
  const lines = [
    `ledger check: ${ok ? "OK" : "MISMATCH"} (${state.failed} failed tasks, charged ${usd} in all)`,
    ...checks.map(([text, passed]) => `  ${passed ? "ok  " : "FAIL"} ${text}`),
  ];
  return { ok, lines };
}

// ---------------------------------------------------------------------------------------
// Runs and tables

interface Run {
  concurrency: number;
  base: LoadResult;
  gateway: LoadResult;
  window: Window;
  settled: Settled;
  phases: Phases;
}

function printResults(runs: Run[]): void {
  const rows: string[][] = [];
  const row = (name: string, result: LoadResult) => [
    name,
    String(result.concurrency),
    fmtRate(result.opsPerSecond),
    fmtMs(result.p50Ms),
    fmtMs(result.p99Ms),
    fmtRate(result.ok),
    String(result.errors),
  ];
  for (const { base, gateway } of runs) {
    rows.push(row("baseline: stub direct", base), row("gateway: api + worker", gateway));
    rows.push([
      "gateway / baseline",
      String(gateway.concurrency),
      fmtRatio(gateway.opsPerSecond, base.opsPerSecond),
      fmtRatio(gateway.p50Ms, base.p50Ms),
      fmtRatio(gateway.p99Ms, base.p99Ms),
      "",
      "",
    ]);
  }
  printTable(
    `Image generation, closed loop (stub upstream latency ${STUB_LATENCY_MS} ms per request)`,
    ["target", "concurrency", "req/s", "p50 ms", "p99 ms", "ok", "errors"],
    rows,
  );
  console.log(
    "  req/s: answers with 200 per second in the measured window; p50/p99 ms: client-side latency of those\n" +
      "  answers; ok: their number; errors: requests that failed or were not 200; ratio rows: gateway over baseline.",
  );
  printAdded(runs);
  printSettled(runs);
  printPhases(runs);
}

function printAdded(runs: Run[]): void {
  printTable(
    "Latency added by the gateway (gateway minus baseline at the same concurrency)",
    ["concurrency", "added p50 ms", "added p99 ms", "p50 ratio", "p99 ratio", "req/s ratio"],
    runs.map(({ concurrency, base, gateway }) => [
      String(concurrency),
      fmtMs(gateway.p50Ms - base.p50Ms),
      fmtMs(gateway.p99Ms - base.p99Ms),
      fmtRatio(gateway.p50Ms, base.p50Ms),
      fmtRatio(gateway.p99Ms, base.p99Ms),
      fmtRatio(gateway.opsPerSecond, base.opsPerSecond),
    ]),
  );
  console.log(
    "  added p50/p99 ms: gateway percentile minus baseline percentile; ratios: gateway over baseline.",
  );
}

function printSettled(runs: Run[]): void {
  printTable(
    "Settlement during the gateway's measured window (from the bench schema)",
    [
      "concurrency",
      "window s",
      "answers/s",
      "settled tasks",
      "charges",
      "settled/s",
      "settled/answers",
    ],
    runs.map(({ concurrency, gateway, window, settled }) => {
      const seconds = (window.toMs - window.fromMs) / 1000;
      return [
        String(concurrency),
        seconds.toFixed(2),
        fmtRate(gateway.opsPerSecond),
        fmtRate(settled.settled),
        fmtRate(settled.charges),
        fmtRate(settled.settled / seconds),
        fmtRatio(settled.settled / seconds, gateway.opsPerSecond),
      ];
    }),
  );
  console.log(
    "  window s: the measured window; answers/s: 200 answers per second; settled tasks: tasks completed in\n" +
      "  the window that carry their charge; charges: charge entries written in the window; settled/s: settled\n" +
      "  tasks per second; settled/answers: settled/s over answers/s (about 1x when nothing lags behind).",
  );
}

function printPhases(runs: Run[]): void {
  const rows: string[][] = [];
  for (const { concurrency, base, phases } of runs) {
    for (const p of [50, 99]) {
      rows.push([
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
  printTable(
    "Where a gateway request's time goes (measured-window requests; each phase's own percentile)",
    ["concurrency", "stat", "submit ms", "queue ms", "run ms", "answer ms", "baseline ms"],
    rows,
  );
  console.log(
    "  submit: client sends -> the task's hold transaction begins (HTTP, auth, validation, Redis hold);\n" +
      "  queue: -> a worker claims it (commit, XADD, XREADGROUP); run: -> settlement begins (upstream call,\n" +
      "  file write); answer: -> the client has the body (settle commit, publish, api wakes, reads the file,\n" +
      "  base64); baseline ms: the stub called directly at the same concurrency, for the upstream's share.",
  );
}

async function measureGateway(
  sql: Sql,
  gateway: Target,
  concurrency: number,
  counted: { answered: number },
): Promise<Omit<Run, "base">> {
  const samples: Sample[] = [];
  const fromMs = wallNow() + WARMUP_MS;
  const result = await runLoad({
    concurrency,
    durationMs: DURATION_MS,
    warmupMs: WARMUP_MS,
    maxOps: MAX_REQUESTS,
    op: async () => {
      const startMs = wallNow();
      const { response } = await call(gateway);
      counted.answered++;
      const taskId = response.headers.get("x-task-id");
      if (startMs >= fromMs && taskId) samples.push({ taskId, startMs, endMs: wallNow() });
    },
  });
  const window = { fromMs, toMs: fromMs + result.seconds * 1000 };
  // Give the last settlements of the window a moment to commit before counting them.
  await Bun.sleep(50);
  const settled = await settledIn(sql, window);
  const phases = await phasesOf(sql, samples);
  return { concurrency, gateway: result, window, settled, phases };
}

async function main(): Promise<number> {
  store = await openBenchStore({ poolMax: 2 });
  filesDir = mkdtempSync(join(tmpdir(), "gw-bench-images-"));
  const { stub, apiUrl } = await startStack(store, filesDir);
  const account = await createAccount(apiUrl);
  const userId = BigInt(account.userId);
  const baseline: Target = {
    name: "baseline",
    url: `${stub.url}/images/generations`,
    key: stub.apiKey,
    body: STUB_BODY,
  };
  const gateway: Target = {
    name: "gateway",
    url: `${apiUrl}/v1/images/generations`,
    key: account.key,
    body: GATEWAY_BODY,
  };
  const balanceBefore = (await ledgerState(store.sql, userId)).balance;
  await probe(baseline, gateway);
  const counted = { answered: 1 };

  console.log(
    `images bench: POST images/generations (gpt-image-1, low, b64_json), ${DURATION_MS} ms per run after ` +
      `${WARMUP_MS} ms warm-up, at most ${MAX_REQUESTS} measured requests per run, concurrency ` +
      `${CONCURRENCY.join("/")}; stub upstream answers a cached 64x64 PNG after ${STUB_LATENCY_MS} ms; ` +
      `${WORKERS} worker processes x ${WORKER_CONCURRENCY} tasks, api pool ${API_POOL_MAX}; ` +
      `balance $${account.balanceUsd} covers every request at $${quotaToUsd(PRICE_QUOTA)}; ` +
      `${navigator.hardwareConcurrency} cores`,
  );
  let failures = 0;
  const runs: Run[] = [];
  for (const concurrency of CONCURRENCY) {
    const base = await runLoad({
      concurrency,
      durationMs: DURATION_MS,
      warmupMs: WARMUP_MS,
      maxOps: MAX_REQUESTS,
      op: async () => {
        await call(baseline);
      },
    });
    failures += reportErrors("baseline", base);
    const run = await measureGateway(store.sql, gateway, concurrency, counted);
    failures += reportErrors("gateway", run.gateway);
    runs.push({ ...run, base });
    process.stdout.write(".");
  }
  process.stdout.write("\n");
  printResults(runs);

  const ledger = await checkLedger(store.sql, userId, balanceBefore, counted.answered);
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
