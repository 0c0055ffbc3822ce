import { randomUUID } from "node:crypto";
import type { Ledger } from "@gw/ledger";
import type { Storage } from "@gw/storage";
import type { Sql } from "@gw/store";
import { priceSnapshot, toBilling } from "@gw/tariffs";
import type { Job } from "../queue.ts";
import {
  claimQueued,
  claimTask,
  extendLease,
  releaseTask,
  type TaskFile,
  type TaskRow,
} from "../records.ts";
import { resultKey } from "../storage-keys.ts";
import { INLINE_MAX_BYTES } from "./announce.ts";
import type { KindResult, KindRunner, ProducedFile } from "./kind.ts";
import type { Lanes } from "./lanes.ts";
import type { Settled, Settlement, Settler } from "./settle.ts";
import { decodeTask } from "./task-json.ts";

export interface RunDeps {
  sql: Sql;
  ledger: Ledger;
  storage: Storage;
  settler: Settler;
  lanes: Lanes;
  kinds: Record<string, KindRunner>;
  workerId: string;
  leaseMs: number;
  maxAttempts: number;
  /** How long settlement keeps retrying while Postgres is unreachable. */
  settleRetryMs: number;
  log: (line: string) => void;
  /** Told of each run's start and end (log lines, metrics). */
  observer?: RunObserver;
  /**
   * Aborted when the worker stops taking jobs and its grace period is over: a run still
   * going is abandoned and handed back (`handed_back`), for another worker to run.
   */
  shutdown?: AbortSignal;
  /** Told of each failed call to Postgres or Redis the engine retries (for the metrics). */
  backendError?: (backend: "postgres" | "redis") => void;
}

/**
 * completed/failed: this run settled the task; skipped: not this run's to do; lost:
 * another run owns the task; handed_back: the worker stopped before the run ended, and
 * the task is free for another worker.
 */
export type RunOutcome = "completed" | "failed" | "skipped" | "lost" | "handed_back";

/** How a run ended, for the observer. */
export interface RunEnd {
  outcome: RunOutcome;
  /** A failure's code and reason. */
  code?: string;
  reason?: string;
  /** What a completed task was charged. */
  chargedQuota?: bigint;
  /** The time the kind's runner (the upstream) took, when it ran. */
  upstreamMs?: number;
  /** The upstream lane (provider) the run used. */
  lane?: string;
}

export interface RunObserver {
  started?(task: TaskRow, info: { attempt: number; lane: string }): void;
  ended?(task: TaskRow, end: RunEnd): void;
}

/**
 * Retries an operation that fails for infrastructure reasons (Postgres restarting) with
 * growing pauses until it lands or `limitMs` passes. Expected outcomes are values.
 */
async function untilItLands<T>(
  what: string,
  limitMs: number,
  log: (line: string) => void,
  run: () => Promise<T>,
  shutdown?: AbortSignal,
): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (let pauseMs = 200; ; pauseMs = Math.min(pauseMs * 2, 5_000)) {
    try {
      return await run();
    } catch (error) {
      // Past the stop's grace period the run is left as it is: unsettled, it is run again.
      if (Date.now() + pauseMs > deadline || shutdown?.aborted) throw error;
      log(`[worker] ${what} failed (${(error as Error).message}); retrying in ${pauseMs} ms`);
      await pauseUnless(pauseMs, shutdown);
    }
  }
}

/** Sleeps `ms`, or less if `signal` aborts first. */
function pauseUnless(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

interface Run {
  task: TaskRow;
  owner: string;
  /** The run's own tag in result file names. */
  tag: string;
  /** Whether this run holds a Postgres lease (a first run has none until it runs long). */
  claimed: boolean;
  startedAt: Date;
  /** Filled in as the run goes, for the observer. */
  end: Omit<RunEnd, "outcome">;
}

/** The task a job names: straight from the job on a first delivery, else claimed in Postgres. */
async function takeJob(deps: RunDeps, job: Job): Promise<Run | null> {
  const tag = randomUUID().slice(0, 8);
  // Each run owns the task under its own name, so a later run of the same worker is a
  // different owner and only one of them can settle.
  const owner = `${deps.workerId}/${tag}`;
  const startedAt = new Date();
  const carried = !job.reclaimed && job.task ? decodeTask(job.task) : null;
  if (carried && carried.status === "queued" && carried.attempts === 0)
    return { task: { ...carried, attempts: 1 }, owner, tag, claimed: false, startedAt, end: {} };
  const task = await claimTask(deps.sql, job.taskId, owner, deps.leaseMs, {
    reclaimed: job.reclaimed,
  });
  return task ? { task, owner, tag, claimed: true, startedAt, end: {} } : null;
}

/**
 * Keeps the run's lease while it runs; aborts the run if another worker owns the task.
 * A first run claims the task in Postgres at its first beat, so only runs that take
 * long (a third of the lease) pay for a lease at all.
 */
function heartbeat(deps: RunDeps, run: Run, controller: AbortController): () => void {
  const timer = setInterval(
    async () => {
      try {
        const kept = run.claimed
          ? await extendLease(deps.sql, run.task.id, run.owner, deps.leaseMs)
          : await claimQueued(deps.sql, run.task.id, run.owner, deps.leaseMs, run.startedAt);
        if (kept) run.claimed = true;
        else controller.abort();
      } catch {
        // Postgres unreachable: keep running; settlement retries and the lease decides.
      }
    },
    Math.max(50, Math.floor(deps.leaseMs / 3)),
  );
  return () => clearInterval(timer);
}

async function storeFiles(deps: RunDeps, run: Run, files: ProducedFile[]): Promise<TaskFile[]> {
  return Promise.all(
    files.map(async (file, position) => {
      const key = resultKey(run.task.id, run.tag, position, file.ext);
      await deps.storage.put(key, file.bytes, file.contentType);
      return {
        key,
        content_type: file.contentType,
        ...(file.index === undefined ? {} : { index: file.index, name: file.name ?? "" }),
        ...(file.seconds === undefined ? {} : { seconds: file.seconds }),
      };
    }),
  );
}

async function settle(deps: RunDeps, run: Run, item: Settlement): Promise<Settled> {
  const settled = await untilItLands(
    `settling ${run.task.id}`,
    deps.settleRetryMs,
    deps.log,
    () =>
      deps.settler.settle(item).catch((error) => {
        deps.backendError?.("postgres");
        throw error;
      }),
    deps.shutdown,
  );
  if (settled.outcome === "failed") {
    run.end.code = settled.finished.fail_code ?? (item.type === "fail" ? item.code : undefined);
    run.end.reason =
      settled.finished.fail_reason ?? (item.type === "fail" ? item.reason : undefined);
  }
  if (settled.outcome === "completed" && settled.finished.charged_quota !== null)
    run.end.chargedQuota = settled.finished.charged_quota;
  return settled;
}

const fail = (deps: RunDeps, run: Run, code: string, reason: string) =>
  settle(deps, run, { type: "fail", task: run.task, owner: run.owner, code, reason });

async function execute(
  deps: RunDeps,
  run: Run,
  runner: KindRunner,
  signal: AbortSignal,
): Promise<RunOutcome> {
  const began = performance.now();
  const result: KindResult = await runner.run(run.task, signal);
  run.end.upstreamMs = performance.now() - began;
  if (signal.aborted) return "lost";
  if (!result.ok) return (await fail(deps, run, result.code, result.message)).outcome;
  if (result.files.length === 0)
    return (await fail(deps, run, "upstream_error", "the provider returned no files")).outcome;
  const files = await storeFiles(deps, run, result.files);
  const price = priceSnapshot(run.task.price, result.volume);
  const bytes = result.files.reduce((sum, file) => sum + file.bytes.byteLength, 0);
  const inline =
    run.task.response_format === "b64_json" && bytes <= INLINE_MAX_BYTES
      ? result.files.map((file) => Buffer.from(file.bytes).toString("base64"))
      : undefined;
  const settled = await settle(deps, run, {
    type: "complete",
    task: run.task,
    owner: run.owner,
    files,
    price,
    billing: toBilling(price),
    startedAt: run.startedAt,
    ...(inline ? { inline } : {}),
  });
  if (settled.outcome !== "completed")
    await Promise.all(files.map((file) => deps.storage.delete(file.key).catch(() => {})));
  return settled.outcome;
}

/**
 * Runs one job to its end: take the task (first runs from the job itself, others by a
 * claim in Postgres), run its kind within the lane's limit, store the files, then settle
 * (charge once) or fail (release), in the settlement batch. A task run too often is
 * given up, so a task that crashes workers cannot loop. The observer hears of the start
 * and the end of every run this worker took.
 */
export async function runJob(deps: RunDeps, job: Job): Promise<RunOutcome> {
  const run = await takeJob(deps, job);
  if (!run) return "skipped";
  const lane = deps.kinds[run.task.kind]?.lane?.(run.task) ?? run.task.kind;
  run.end.lane = lane;
  deps.observer?.started?.(run.task, { attempt: run.task.attempts, lane });
  let outcome: RunOutcome = "lost";
  try {
    outcome = await runTaken(deps, run, lane);
    return outcome;
  } finally {
    deps.observer?.ended?.(run.task, { ...run.end, outcome });
  }
}

async function runTaken(deps: RunDeps, run: Run, lane: string): Promise<RunOutcome> {
  const { task } = run;
  if (task.attempts > deps.maxAttempts)
    return (
      await fail(
        deps,
        run,
        "upstream_error",
        `gave up after ${deps.maxAttempts} runs that did not finish`,
      )
    ).outcome;
  // A first run straight from the job needs no re-check: the api enqueued it only after
  // its hold was confirmed. A claimed first run may be a task whose api died before
  // confirming (the sweep found it), so its hold is checked against the wallet now.
  if (task.attempts === 1 && run.claimed) {
    const covered = await deps.ledger.recheck({
      holdId: task.id,
      userId: task.user_id,
      keyId: task.key_id,
      amountQuota: task.hold_quota,
    });
    if (!covered.ok)
      return (
        await fail(
          deps,
          run,
          covered.code,
          "the balance no longer covers this task (its hold was refused after Redis lost its state)",
        )
      ).outcome;
  }
  const runner = deps.kinds[task.kind];
  if (!runner)
    return (await fail(deps, run, "upstream_unavailable", `no runner for ${task.kind} tasks`))
      .outcome;
  // The lease is kept while the task waits for its lane too, so no sweep runs it twice.
  const controller = new AbortController();
  const stopping = () => controller.abort();
  deps.shutdown?.addEventListener("abort", stopping);
  const stop = heartbeat(deps, run, controller);
  const release = await deps.lanes.acquire(lane);
  const abandoned = () => (deps.shutdown?.aborted ? handBack(deps, run) : "lost");
  try {
    if (controller.signal.aborted) return await abandoned();
    const outcome = await execute(deps, run, runner, controller.signal);
    return outcome === "lost" ? await abandoned() : outcome;
  } catch (error) {
    if (controller.signal.aborted) return await abandoned();
    throw error;
  } finally {
    deps.shutdown?.removeEventListener("abort", stopping);
    stop();
    release();
  }
}

/**
 * A run abandoned at shutdown: its task goes back to `queued` (when this run had claimed
 * it) with the attempt not counted, so the next worker takes it at once. Nothing of the
 * run was settled: settlement only starts once the upstream answered, and is not aborted.
 */
async function handBack(deps: RunDeps, run: Run): Promise<RunOutcome> {
  if (run.claimed) await releaseTask(deps.sql, run.task.id, run.owner).catch(() => false);
  return "handed_back";
}
