import { randomUUID } from "node:crypto";
import type { Ledger } from "@gw/ledger";
import type { OutputFile } from "@gw/providers";
import type { SafeFetcher } from "@gw/safe-fetch";
import type { Storage } from "@gw/storage";
import type { RedisClient, Sql } from "@gw/store";
import { type Catalog, priceSnapshot, toBilling } from "@gw/tariffs";
import {
  claimTask,
  completeTask,
  extendLease,
  failTask,
  publishDone,
  type TaskFile,
  type TaskRow,
} from "@gw/tasks";
import type { ProviderRouter } from "./providers.ts";
import { readSources } from "./sources.ts";

export interface TaskDeps {
  sql: Sql;
  redis: RedisClient;
  prefix: string;
  ledger: Ledger;
  storage: Storage;
  fetcher: SafeFetcher;
  catalog: Catalog;
  router: ProviderRouter;
  workerId: string;
  leaseMs: number;
  maxAttempts: number;
  /** How long settlement keeps retrying while Postgres is unreachable. */
  settleRetryMs: number;
  log: (line: string) => void;
}

export type RunOutcome = "completed" | "failed" | "skipped" | "lost";

interface Failure {
  code: string;
  reason: string;
}

/** Thrown inside a settlement transaction to roll it back: another worker owns the task now. */
class LeaseLost extends Error {}
/** Thrown inside a settlement transaction to roll it back: the hold is no longer pending. */
class HoldGone extends Error {}

/**
 * Retries an operation that fails for infrastructure reasons (Postgres restarting) with
 * growing pauses until it lands or `limitMs` passes. Expected outcomes are values and
 * are returned at once; only thrown errors are retried.
 */
async function untilItLands<T>(
  what: string,
  limitMs: number,
  log: (line: string) => void,
  run: () => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (let pauseMs = 200; ; pauseMs = Math.min(pauseMs * 2, 5_000)) {
    try {
      return await run();
    } catch (error) {
      if (
        error instanceof LeaseLost ||
        error instanceof HoldGone ||
        Date.now() + pauseMs > deadline
      )
        throw error;
      log(`[worker] ${what} failed (${(error as Error).message}); retrying in ${pauseMs} ms`);
      await Bun.sleep(pauseMs);
    }
  }
}

/** Keeps the task's lease while it runs; aborts the run if another worker took it over. */
function heartbeat(deps: TaskDeps, taskId: string, controller: AbortController): () => void {
  const timer = setInterval(
    async () => {
      try {
        if (!(await extendLease(deps.sql, taskId, deps.workerId, deps.leaseMs))) controller.abort();
      } catch {
        // Postgres unreachable: keep running; settlement retries and the lease decides.
      }
    },
    Math.max(50, Math.floor(deps.leaseMs / 3)),
  );
  return () => clearInterval(timer);
}

/** How many units were produced, never more than were held for. */
function actualVolume(task: TaskRow, files: number): number {
  const snapshot = task.price;
  return snapshot.unit === "image" ? Math.min(files, snapshot.quantity) : snapshot.quantity;
}

async function storeFiles(deps: TaskDeps, task: TaskRow, files: OutputFile[]): Promise<TaskFile[]> {
  const stored: TaskFile[] = [];
  for (const [position, file] of files.entries()) {
    // Each run writes its own keys, so a run that lost its lease never touches the winner's files.
    const key = `results/${task.id}/${task.attempts}-${position}.${file.ext}`;
    await deps.storage.put(key, file.bytes, file.contentType);
    stored.push({
      key,
      content_type: file.contentType,
      ...(file.index === undefined ? {} : { index: file.index, name: file.name ?? "" }),
    });
  }
  return stored;
}

/** Drops the task's uploads (it has ended) and wakes the api requests waiting for it. */
async function announce(deps: TaskDeps, taskId: string): Promise<void> {
  await deps.storage.deletePrefix(`uploads/${taskId}/`).catch(() => 0);
  await publishDone(deps.redis, deps.prefix, taskId).catch((error) =>
    deps.log(`[worker] announcing ${taskId} failed: ${(error as Error).message}`),
  );
}

/** Charges the exact sum by the stored rates and completes the task, in one transaction. */
async function settle(deps: TaskDeps, task: TaskRow, files: TaskFile[]): Promise<RunOutcome> {
  const price = priceSnapshot(task.price, actualVolume(task, files.length));
  const billing = toBilling(price);
  const staged = await untilItLands(`settling ${task.id}`, deps.settleRetryMs, deps.log, () =>
    deps.sql.begin(async (sql) => {
      const tx = sql as unknown as Sql;
      // The task row first: the charge then locks the account row only for the last
      // statement and the commit, which is what bounds settlements per account.
      if (!(await completeTask(tx, task.id, deps.workerId, files, billing, price.quota)))
        throw new LeaseLost();
      const post = await deps.ledger.postWithin(tx, task.id, price.quota, {
        requestId: task.id,
        model: task.model,
      });
      if (!post.result.ok) throw new HoldGone();
      return post;
    }),
  ).catch(async (error) => {
    if (!(error instanceof LeaseLost || error instanceof HoldGone)) throw error;
    await Promise.all(files.map((file) => deps.storage.delete(file.key).catch(() => {})));
    return error instanceof HoldGone ? ("hold gone" as const) : null;
  });
  if (!staged) return "lost";
  if (staged === "hold gone") {
    // The hold ran out before the task finished (it waited longer than HOLD_TTL_MS).
    return fail(deps, task, {
      code: "expired",
      reason: "the task's funds hold expired before it finished",
    });
  }
  await staged.afterCommit().catch(() => {});
  await announce(deps, task.id);
  return "completed";
}

/** Releases the hold with no charge and no refund record, and records why (spec 2.6.1). */
async function fail(
  deps: TaskDeps,
  task: TaskRow,
  failure: Failure,
  owner: string | null = deps.workerId,
): Promise<RunOutcome> {
  const staged = await untilItLands(`failing ${task.id}`, deps.settleRetryMs, deps.log, () =>
    deps.sql.begin(async (sql) => {
      const tx = sql as unknown as Sql;
      const voided = await deps.ledger.voidWithin(tx, task.id);
      if (!(await failTask(tx, task.id, owner, failure.code, failure.reason)))
        throw new LeaseLost();
      return voided;
    }),
  ).catch((error) => {
    if (error instanceof LeaseLost) return null;
    throw error;
  });
  if (!staged) return "lost";
  await staged.afterCommit().catch(() => {});
  deps.log(`[worker] task ${task.id} failed (${failure.code}): ${failure.reason}`);
  await announce(deps, task.id);
  return "failed";
}

async function execute(deps: TaskDeps, task: TaskRow, signal: AbortSignal): Promise<RunOutcome> {
  const upstream = deps.router.route(task.model);
  if (!upstream)
    return fail(deps, task, {
      code: "upstream_unavailable",
      reason: `no provider serves model ${task.model}`,
    });
  const sources = await readSources(deps, task, signal);
  if (!sources.ok) return fail(deps, task, { code: "source_unavailable", reason: sources.message });
  const result = await upstream.provider.run({
    taskId: task.id,
    model: task.model,
    upstreamModel: upstream.upstreamModel,
    operation: task.operation,
    ...(task.prompt === null ? {} : { prompt: task.prompt }),
    input: task.input,
    images: sources.images,
    signal,
  });
  if (signal.aborted) return "lost";
  if (!result.ok) return fail(deps, task, { code: result.code, reason: result.message });
  if (result.files.length === 0)
    return fail(deps, task, { code: "upstream_error", reason: "the provider returned no files" });
  const files = await storeFiles(deps, task, result.files);
  return settle(deps, task, files);
}

/**
 * Runs one task to its end: claim it in Postgres (one worker wins), read its sources,
 * call the provider, store the files, then settle (charge once) or fail (release).
 * A task claimed too often is given up, so a task that crashes workers cannot loop.
 */
export async function runTask(workerDeps: TaskDeps, taskId: string): Promise<RunOutcome> {
  // Each run owns the lease under its own name, so a later run of the same worker
  // (after its lease ran out) is a different owner and only one of them can settle.
  const deps = { ...workerDeps, workerId: `${workerDeps.workerId}/${randomUUID().slice(0, 8)}` };
  const task = await claimTask(deps.sql, taskId, deps.workerId, deps.leaseMs);
  if (!task) return "skipped";
  if (task.attempts > deps.maxAttempts)
    return fail(deps, task, {
      code: "upstream_error",
      reason: `gave up after ${deps.maxAttempts} runs that did not finish`,
    });
  const controller = new AbortController();
  const stop = heartbeat(deps, task.id, controller);
  try {
    return await execute(deps, task, controller.signal);
  } catch (error) {
    if (controller.signal.aborted) return "lost";
    throw error;
  } finally {
    stop();
  }
}
