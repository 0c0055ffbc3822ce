/**
 * GET /v1/balance under concurrency: the real api (its own process, own schema and
 * Redis prefix) beside a bare `Bun.serve` baseline (another process), both measured in
 * this run by a closed-loop load generator in this process.
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
} from "../../../scripts/bench-lib.ts";

const CONCURRENCY = [1, 16, 64];
const WARMUP_MS = 500;
const DURATION_MS = 3_000;
/** Per run, after warm-up. */
const MAX_REQUESTS = 200_000;
const REQUEST_TIMEOUT_MS = 5_000;

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

async function main(): Promise<number> {
  const here = import.meta.dir;
  // Each child is registered as soon as it runs, so a failure of the other still stops it.
  const start = async <T>(file: string, parse: (value: unknown) => T) => {
    const child = await startChildServer(join(here, file), parse);
    children.push(child);
    return child;
  };
  const [apiStart, bareStart] = await Promise.allSettled([
    start("api-server.ts", (value) => ({
      url: stringField(value, "url"),
      key: stringField(value, "key"),
    })),
    start("baseline-server.ts", (value) => ({ url: stringField(value, "url") })),
  ]);
  if (apiStart.status === "rejected") throw apiStart.reason;
  if (bareStart.status === "rejected") throw bareStart.reason;
  const api = apiStart.value;
  const bare = bareStart.value;

  const gateway: Target = { name: "gateway (api)", url: api.info.url, key: api.info.key };
  const baseline: Target = { name: "baseline (Bun.serve)", url: bare.info.url, key: "sk-bench" };
  await checkTarget(gateway);
  await checkTarget(baseline);

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

  for (const concurrency of CONCURRENCY) {
    const base = await measure(baseline, concurrency);
    const gw = await measure(gateway, concurrency);
    rows.push(row(baseline.name, base), row(gateway.name, gw), [
      "gateway / baseline",
      String(concurrency),
      fmtRatio(gw.opsPerSecond, base.opsPerSecond),
      fmtRatio(gw.p50Ms, base.p50Ms),
      fmtRatio(gw.p99Ms, base.p99Ms),
      "",
      "",
    ]);
  }
  process.stdout.write("\n");

  printTable(
    "GET /v1/balance (closed loop; ratio rows: req/s, p50 and p99 of gateway over baseline)",
    ["target", "concurrency", "req/s", "p50 ms", "p99 ms", "ok", "errors"],
    rows,
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
