/**
 * `bun run bench`: the hold-admission bench, the spend-history bench, the rate-limiter bench, the
 * GET /v1/balance bench (limiter off and on), then the image generation bench (gateway
 * against the stub upstream called directly), one after the other (they would skew each
 * other on a small machine). Output is passed through; the exit code is non-zero if
 * any failed. DATABASE_URL and REDIS_URL default to the local servers.
 */
import { join } from "node:path";
import { BENCH_DATABASE_URL, BENCH_REDIS_URL } from "@gw/benchkit";

const ROOT = join(import.meta.dir, "..");
const BENCHES = [
  "packages/ledger/bench/holds.bench.ts",
  "packages/ledger/bench/history.bench.ts",
  "packages/ratelimit/bench/limiter.bench.ts",
  "apps/api/bench/balance.bench.ts",
  "apps/api/bench/images.bench.ts",
  "apps/api/bench/audio.bench.ts",
];
/** Each bench bounds itself far below this; it only stops a hung one. */
const BENCH_TIMEOUT_MS = 90_000;

const env = { ...process.env, DATABASE_URL: BENCH_DATABASE_URL, REDIS_URL: BENCH_REDIS_URL };
const failed: string[] = [];
const started = performance.now();

for (const file of BENCHES) {
  console.log(`\n=== bun run ${file}`);
  const t0 = performance.now();
  const child = Bun.spawn(["bun", "run", file], {
    cwd: ROOT,
    env,
    stdio: ["inherit", "inherit", "inherit"],
    timeout: BENCH_TIMEOUT_MS,
    killSignal: "SIGTERM",
  });
  const code = await child.exited;
  const seconds = ((performance.now() - t0) / 1000).toFixed(1);
  if (code === 0) {
    console.log(`=== ${file}: ok in ${seconds} s`);
  } else {
    console.error(
      `=== ${file}: FAILED (exit ${code}${child.signalCode ? `, ${child.signalCode}` : ""}) after ${seconds} s`,
    );
    failed.push(file);
  }
}

const total = ((performance.now() - started) / 1000).toFixed(1);
if (failed.length > 0) {
  console.error(
    `\nbench: ${failed.length} of ${BENCHES.length} failed in ${total} s: ${failed.join(", ")}`,
  );
  process.exit(1);
}
console.log(`\nbench: ${BENCHES.length} benches ok in ${total} s`);
