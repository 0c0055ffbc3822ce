/**
 * GET /v1/balance under concurrency: the real api three times (each its own process,
 * own schema and Redis prefix) with its limiters off, with the route's IP limits on
 * (balance window + critical tier: one limiter round trip before auth), and with those
 * plus the key's rpm_limit (a second round trip after auth), beside a bare `Bun.serve`
 * baseline, all measured in this run by a closed-loop load generator in this process.
 * Limits are sized so nothing is refused: the cost a client below its limits pays.
 *
 *   bun run apps/api/bench/balance.bench.ts
 */
import { join } from "node:path";
import {
  type ChildServer,
  fmtMs,
  fmtRate,
  fmtRatio,
  type LoadResult,
  printTable,
  reportErrors,
  runLoad,
  startChildServer,
  stringField,
} from "@gw/benchkit";

const CONCURRENCY = [1, 16, 64];
const WARMUP_MS = 400;
const DURATION_MS = 2_000;
/** Per run, after warm-up. */
const MAX_REQUESTS = 200_000;
const REQUEST_TIMEOUT_MS = 5_000;

const WIDE = "1000000/60s";
/** The api configurations compared; the first is the reference of the ratio rows. */
const GATEWAYS = [
  {
    name: "gateway, limits off",
    env: { RATE_LIMIT_BALANCE: "off", RATE_LIMIT_CRITICAL: "off", BENCH_KEY_RPM_LIMIT: "0" },
  },
  {
    name: "gateway, IP limits",
    env: { RATE_LIMIT_BALANCE: WIDE, RATE_LIMIT_CRITICAL: WIDE, BENCH_KEY_RPM_LIMIT: "0" },
  },
  {
    name: "gateway, IP + key rpm",
    env: { RATE_LIMIT_BALANCE: WIDE, RATE_LIMIT_CRITICAL: WIDE, BENCH_KEY_RPM_LIMIT: "1000000" },
  },
];

interface Target {
  name: string;
  url: string;
  key: string;
}

async function getBalance(target: Target): Promise<string> {
  const response = await fetch(`${target.url}/v1/balance`, {
    headers: { authorization: `Bearer ${target.key}` },
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${body.slice(0, 160)}`);
  return body;
}

/** One request before the load: the answer must be a balance, not just any 200. */
async function checkTarget(target: Target): Promise<void> {
  const parsed: unknown = JSON.parse(await getBalance(target));
  const balance =
    typeof parsed === "object" && parsed !== null && "balance" in parsed
      ? parsed.balance
      : undefined;
  if (typeof balance !== "number") {
    throw new Error(`${target.name}: unexpected balance body ${JSON.stringify(parsed)}`);
  }
}

const children: ChildServer<unknown>[] = [];
const stopChildren = () => Promise.allSettled(children.map((child) => child.stop()));
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void stopChildren().then(() => process.exit(130));
  });
}

/** Starts every server; each child is registered as soon as it runs, so a failure still stops the rest. */
async function startTargets(): Promise<{ baseline: Target; gateways: Target[] }> {
  const here = import.meta.dir;
  const start = async <T>(file: string, parse: (value: unknown) => T, env = {}) => {
    const child = await startChildServer(join(here, file), parse, { env });
    children.push(child);
    return child.info;
  };
  const parseApi = (value: unknown) => ({
    url: stringField(value, "url"),
    key: stringField(value, "key"),
  });
  const [bareStart, ...apiStarts] = await Promise.allSettled([
    start("baseline-server.ts", (value) => ({ url: stringField(value, "url"), key: "sk-bench" })),
    ...GATEWAYS.map((gateway) => start("api-server.ts", parseApi, gateway.env)),
  ]);
  for (const started of [bareStart, ...apiStarts]) {
    if (started?.status === "rejected") throw started.reason;
  }
  const info = (started: (typeof apiStarts)[number] | undefined) => {
    if (started?.status !== "fulfilled") throw new Error("a server did not start");
    return started.value;
  };
  return {
    baseline: { name: "baseline (Bun.serve)", ...info(bareStart) },
    gateways: GATEWAYS.map((gateway, i) => ({ name: gateway.name, ...info(apiStarts[i]) })),
  };
}

async function main(): Promise<number> {
  const { baseline, gateways } = await startTargets();
  for (const target of [baseline, ...gateways]) await checkTarget(target);

  console.log(
    `balance bench: GET /v1/balance, ${DURATION_MS} ms per run after ${WARMUP_MS} ms warm-up, ` +
      `at most ${MAX_REQUESTS} measured requests per run, concurrency ${CONCURRENCY.join("/")}; ` +
      `servers and load generator are separate processes on ${navigator.hardwareConcurrency} cores`,
  );
  const rows: string[][] = [];
  let failures = 0;
  const measure = async (target: Target, concurrency: number): Promise<LoadResult> => {
    const result = await runLoad({
      concurrency,
      durationMs: DURATION_MS,
      warmupMs: WARMUP_MS,
      maxOps: MAX_REQUESTS,
      op: async () => {
        await getBalance(target);
      },
    });
    failures += reportErrors(target.name, result);
    process.stdout.write(".");
    return result;
  };
  const row = (name: string, result: LoadResult) => [
    name,
    String(result.concurrency),
    fmtRate(result.opsPerSecond),
    fmtMs(result.p50Ms),
    fmtMs(result.p99Ms),
    fmtRate(result.ok),
    String(result.errors),
  ];
  const ratio = (name: string, value: LoadResult, base: LoadResult) => [
    name,
    String(value.concurrency),
    fmtRatio(value.opsPerSecond, base.opsPerSecond),
    fmtRatio(value.p50Ms, base.p50Ms),
    fmtRatio(value.p99Ms, base.p99Ms),
    "",
    "",
  ];
  const added = (name: string, value: LoadResult, base: LoadResult) => [
    name,
    String(value.concurrency),
    "",
    fmtMs(value.p50Ms - base.p50Ms),
    fmtMs(value.p99Ms - base.p99Ms),
    "",
    "",
  ];

  const summary: string[][] = [];
  for (const concurrency of CONCURRENCY) {
    const base = await measure(baseline, concurrency);
    const results: LoadResult[] = [];
    for (const gateway of gateways) results.push(await measure(gateway, concurrency));
    const [off, ...limited] = results as [LoadResult, ...LoadResult[]];
    rows.push(row(baseline.name, base), ...results.map((r, i) => row(gateways[i]!.name, r)));
    rows.push(ratio("limits off / baseline", off, base));
    limited.forEach((result, i) => {
      const name = gateways[i + 1]!.name.replace("gateway, ", "");
      summary.push(
        ratio(`${name} / limits off`, result, off),
        added(`added by ${name} (ms)`, result, off),
      );
    });
  }
  process.stdout.write("\n");

  printTable(
    "GET /v1/balance (closed loop; ratio row: req/s, p50 and p99 of the gateway over the baseline)",
    ["target", "concurrency", "req/s", "p50 ms", "p99 ms", "ok", "errors"],
    rows,
  );
  printTable(
    "Cost of the limiter on GET /v1/balance (ratio rows: req/s, p50, p99 over limits off; 'added' rows: latency difference in ms)",
    ["comparison", "concurrency", "req/s", "p50 ms", "p99 ms"],
    summary.map((cells) => cells.slice(0, 5)),
  );
  if (failures > 0) {
    console.error(`balance bench: ${failures} failed request(s)`);
    return 1;
  }
  return 0;
}

let code = 1;
try {
  code = await main();
} catch (error) {
  console.error("balance bench failed:", error);
} finally {
  await stopChildren();
}
process.exit(code);
