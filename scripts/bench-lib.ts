/**
 * Shared pieces of the benchmarks: a bounded closed-loop load generator, percentiles,
 * tables, an isolated Postgres schema + Redis prefix per run, and child-process servers.
 * It imports no workspace package; the store functions are passed in by the caller.
 */
import { type IsolatedStore, openIsolatedStore } from "@gw/store";

export const BENCH_DATABASE_URL =
  process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const BENCH_REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

// ---------------------------------------------------------------------------------------
// Load loop

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

// ---------------------------------------------------------------------------------------
// Formatting

export function fmtRate(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "-";
}

export function fmtMs(value: number): string {
  if (!Number.isFinite(value)) return "-";
  return value < 10 ? value.toFixed(3) : value.toFixed(1);
}

/** `value / base` as "0.42x"; "-" when either side is missing. */
export function fmtRatio(value: number, base: number): string {
  if (!Number.isFinite(value) || !Number.isFinite(base) || base === 0) return "-";
  return `${(value / base).toFixed(2)}x`;
}

/** A plain-text table; columns whose cells all look numeric are right-aligned. */
export function printTable(title: string, headers: string[], rows: string[][]): void {
  const widths = headers.map((header, col) =>
    Math.max(header.length, ...rows.map((row) => (row[col] ?? "").length)),
  );
  const numeric = headers.map((_, col) =>
    rows.every((row) => /^[-\d.,x% ]*$/.test(row[col] ?? "")),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, col) => {
        const width = widths[col] ?? 0;
        return numeric[col] ? cell.padStart(width) : cell.padEnd(width);
      })
      .join(" | ");
  console.log(`\n${title}`);
  console.log(line(headers));
  console.log(widths.map((width) => "-".repeat(width)).join("-|-"));
  for (const row of rows) console.log(line(row));
}

// ---------------------------------------------------------------------------------------
// Isolated store: a fresh schema and Redis prefix, removed again at the end

/** A fresh, migrated schema and Redis prefix for one benchmark, removed by `close()`. */
export function openBenchStore(options: { poolMax: number }): Promise<IsolatedStore> {
  return openIsolatedStore({
    databaseUrl: BENCH_DATABASE_URL,
    redisUrl: BENCH_REDIS_URL,
    label: "bench",
    poolMax: options.poolMax,
  });
}

// ---------------------------------------------------------------------------------------
// Child-process servers

/** Passed to children started by `startChildServer`, so they know a parent holds their stdin. */
const CHILD_FLAG = "--bench-child";

export interface ChildServer<T> {
  /** The JSON object the child printed as its first stdout line. */
  info: T;
  stop(): Promise<void>;
}

/**
 * Starts `bun run <file>` and waits (at most `timeoutMs`) for the one JSON line it
 * prints on stdout once it listens. Later output is passed on to stderr. `stop` sends
 * SIGTERM, then SIGKILL after 5 s. The child's stdin is a pipe held by this process,
 * so a child that watches it also ends when this process dies abruptly.
 */
export async function startChildServer<T>(
  file: string,
  parse: (value: unknown) => T,
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<ChildServer<T>> {
  const child = Bun.spawn(["bun", "run", file, CHILD_FLAG], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
    env: { ...process.env, ...options.env },
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await child.exited;
    clearTimeout(killer);
  };

  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  const firstLine = async (): Promise<string> => {
    for (;;) {
      const newline = buffered.indexOf("\n");
      if (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        return line;
      }
      const { done, value } = await reader.read();
      if (done) throw new Error(`${file} exited before printing its address`);
      buffered += decoder.decode(value, { stream: true });
    }
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${file} did not start within ${options.timeoutMs ?? 30_000} ms`)),
      options.timeoutMs ?? 30_000,
    );
  });
  try {
    const line = await Promise.race([firstLine(), timeout]);
    const info = parse(JSON.parse(line));
    // Keep draining stdout so a chatty child never blocks on a full pipe.
    void (async () => {
      if (buffered) process.stderr.write(buffered);
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        process.stderr.write(value);
      }
    })().catch(() => {});
    return { info, stop };
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * In a child started by `startChildServer`, ends the process when its stdin closes:
 * the parent bench died. Run by hand, the child ignores stdin.
 */
export function exitWithParent(shutdown: (reason: string) => void): void {
  if (!process.argv.includes(CHILD_FLAG)) return;
  void (async () => {
    for await (const _chunk of Bun.stdin.stream()) {
      // Nothing is ever sent; the loop only ends when the pipe closes.
    }
    shutdown("stdin closed");
  })().catch(() => shutdown("stdin error"));
}

/** Reads a string field of an unknown JSON value, or throws. */
export function stringField(value: unknown, field: string): string {
  if (typeof value === "object" && value !== null && field in value) {
    const found: unknown = (value as Record<string, unknown>)[field];
    if (typeof found === "string") return found;
  }
  throw new Error(`expected a string "${field}" in ${JSON.stringify(value)}`);
}
