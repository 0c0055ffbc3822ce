/**
 * Limiter checks per second: `checkIp` (group window + tier + block, one EVALSHA) and
 * `checkKey` (rpm window), admitted and refused, beside the cost floor of one bare
 * EVALSHA of a trivial script measured in the same run on the same connection.
 *
 *   bun run packages/ratelimit/bench/limiter.bench.ts
 */
import {
  fmtMs,
  fmtRate,
  fmtRatio,
  type LoadResult,
  openBenchStore,
  printTable,
  reportErrors,
  runLoad,
} from "@gw/benchkit";
import { createLimiter, type LimitPolicy } from "../src/index.ts";

const CONCURRENCY = [1, 16, 64];
const WARMUP_MS = 300;
const DURATION_MS = 1_500;
/** Per run, after warm-up: bounds the entries a fast machine writes into one window. */
const MAX_OPS = 100_000;
/** Distinct client IPs the spread scenario cycles through. */
const IPS = 10_000;

const TRIVIAL_SCRIPT = "return redis.call('HINCRBY', KEYS[1], 'n', 1)";

/** Windows no run fills, so every check is admitted and recorded: the common path. */
const WIDE: LimitPolicy = {
  models: { limit: 1_000_000, windowMs: 10_000 },
  balance: { limit: 1_000_000, windowMs: 10_000 },
  blockMs: 60_000,
  critical: { limit: 1_000_000, windowMs: 10_000 },
  general: null,
  model: { limit: 1_000_000, windowMs: 10_000 },
};
/** One request per window: after the first, every check is refused (a flood being turned away). */
const NARROW: LimitPolicy = { ...WIDE, balance: { limit: 1, windowMs: 600_000 }, blockMs: 0 };

interface Scenario {
  name: string;
  op: (i: number) => Promise<unknown>;
}

async function main(): Promise<number> {
  const store = await openBenchStore({ poolMax: 1 });
  const { redis, prefix } = store;
  try {
    const sha = String(await redis.script("LOAD", TRIVIAL_SCRIPT));
    const scratchKey = `${prefix}:scratch`;
    let runs = 0;
    // A fresh prefix per run keeps one run's window from slowing the next.
    const limiter = (policy: LimitPolicy) =>
      createLimiter({ redis, prefix: `${prefix}:${++runs}`, policy });

    const scenarios: Scenario[] = [
      { name: "baseline: bare EVALSHA", op: () => redis.evalsha(sha, 1, scratchKey) },
      {
        name: "checkIp balance+critical, one IP",
        op: () => current.checkIp({ ip: "10.0.0.1", group: "balance", tier: "critical" }),
      },
      {
        name: "checkIp models, 10k IPs",
        op: (i) => current.checkIp({ ip: `10.1.${(i % IPS) >> 8}.${i % 256}`, group: "models" }),
      },
      {
        name: "checkIp refused (flood)",
        op: () => current.checkIp({ ip: "10.0.0.2", group: "balance" }),
      },
      {
        name: "checkKey rpm+model",
        op: () => current.checkKey({ keyId: 1n, userId: 1n, rpmLimit: 1_000_000, model: "m" }),
      },
    ];
    let current = limiter(WIDE);

    console.log(
      `limiter bench: ${DURATION_MS} ms per run after ${WARMUP_MS} ms warm-up, at most ` +
        `${MAX_OPS} measured checks per run, concurrency ${CONCURRENCY.join("/")}, ` +
        `one Redis connection (auto-pipelined), ${navigator.hardwareConcurrency} cores`,
    );
    const rows: string[][] = [];
    let failures = 0;
    for (const concurrency of CONCURRENCY) {
      let base: LoadResult | undefined;
      for (const scenario of scenarios) {
        current = limiter(scenario.name.includes("refused") ? NARROW : WIDE);
        const result = await runLoad({
          concurrency,
          durationMs: DURATION_MS,
          warmupMs: WARMUP_MS,
          maxOps: MAX_OPS,
          op: async (i) => {
            await scenario.op(i);
          },
        });
        failures += reportErrors(scenario.name, result);
        base ??= result;
        rows.push([
          scenario.name,
          String(concurrency),
          fmtRate(result.opsPerSecond),
          fmtMs(result.p50Ms),
          fmtMs(result.p99Ms),
          result === base ? "1.00x" : fmtRatio(result.opsPerSecond, base.opsPerSecond),
        ]);
        process.stdout.write(".");
      }
    }
    process.stdout.write("\n");
    printTable(
      "Limiter checks (closed loop; 'vs baseline' = checks/s over bare EVALSHA/s at that concurrency)",
      ["scenario", "concurrency", "checks/s", "p50 ms", "p99 ms", "vs baseline"],
      rows,
    );
    return failures > 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}

let code = 1;
try {
  code = await main();
} catch (error) {
  console.error("limiter bench failed:", error);
}
process.exit(code);
