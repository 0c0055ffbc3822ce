/** A bounded closed-loop load generator and its percentiles. */
export interface LoadOptions {
  /** Workers each running one operation at a time (closed loop). */
  concurrency: number;
  /** Measured window, after the warm-up. */
  durationMs: number;
  /** Operations started in this first window are run but not counted. */
  warmupMs: number;
  /** Hard cap on operations started in the measured window (the warm-up is bounded by time). */
  maxOps: number;
  /** One operation; `i` is unique within the run. Throwing counts as an error. */
  op: (i: number) => Promise<void>;
}

export interface LoadResult {
  concurrency: number;
  /** Successful operations started inside the measured window. */
  ok: number;
  errors: number;
  /** Error message -> occurrences, measured window and warm-up together. */
  errorMessages: Map<string, number>;
  /** Seconds from the end of the warm-up until the last counted operation finished. */
  seconds: number;
  opsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * Runs `op` from `concurrency` workers until the duration or the operation cap is
 * reached, and reports throughput and latency of the operations begun after warm-up.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { concurrency, durationMs, warmupMs, maxOps, op } = options;
  const start = performance.now();
  const measureFrom = start + warmupMs;
  const stopAt = measureFrom + durationMs;
  const latencies: number[] = [];
  const errorMessages = new Map<string, number>();
  let errors = 0;
  let started = 0;
  let measured = 0;
  let lastEnd = measureFrom;

  const worker = async () => {
    for (;;) {
      const t0 = performance.now();
      if (t0 >= stopAt) return;
      if (t0 >= measureFrom && measured++ >= maxOps) return;
      const i = started++;
      let failure: string | null = null;
      try {
        await op(i);
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
      }
      const t1 = performance.now();
      if (failure !== null) {
        errorMessages.set(failure, (errorMessages.get(failure) ?? 0) + 1);
      }
      if (t0 < measureFrom) continue;
      if (t1 > lastEnd) lastEnd = t1;
      if (failure === null) latencies.push(t1 - t0);
      else errors++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));

  if (latencies.length === 0) {
    const message = "no operation succeeded in the measured window";
    errorMessages.set(message, 1);
    errors++;
  }
  const sorted = Float64Array.from(latencies).sort();
  const seconds = Math.max(lastEnd - measureFrom, 1) / 1000;
  return {
    concurrency,
    ok: sorted.length,
    errors,
    errorMessages,
    seconds,
    opsPerSecond: sorted.length / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.length > 0 ? sorted[sorted.length - 1]! : Number.NaN,
  };
}

/** Nearest-rank percentile of ascending values; NaN when there are none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** Prints the errors of a run, if any, and answers how many there were. */
export function reportErrors(label: string, result: LoadResult): number {
  const total = [...result.errorMessages.values()].reduce((sum, n) => sum + n, 0);
  if (total === 0) return 0;
  console.error(`  ! ${label} c=${result.concurrency}: ${total} failed operation(s)`);
  const top = [...result.errorMessages.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5);
  for (const [message, count] of top) console.error(`      ${count} x ${message.slice(0, 200)}`);
  return total;
}
