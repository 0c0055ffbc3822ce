import type { RedisClient } from "@gw/store";
import { ack, ensureGroup, type Job, readJobs, reclaimJobs, touchJob } from "@gw/tasks";
import { type RunOutcome, runTask, type TaskDeps } from "./run-task.ts";

export interface ConsumerOptions {
  deps: TaskDeps;
  /** A connection of its own: XREADGROUP BLOCK holds it while waiting. */
  blocking: RedisClient;
  concurrency: number;
  /** A job unacknowledged this long is taken from the consumer that had it (it died). */
  claimIdleMs: number;
  onOutcome?: (taskId: string, outcome: RunOutcome) => void;
}

const BLOCK_MS = 1_000;

/**
 * Pulls image jobs from the stream through the consumer group and runs up to
 * `concurrency` tasks at once. A job is acknowledged once its task has finished (or
 * was not this worker's to run); a crash leaves it pending, and after `claimIdleMs`
 * another worker's reclaim loop takes it over.
 */
export function startConsumer(options: ConsumerOptions): { stop(): Promise<void> } {
  const { deps, concurrency } = options;
  const running = new Set<Promise<void>>();
  let stopped = false;

  const dispatch = (job: Job) => {
    const touch = setInterval(
      () => void touchJob(deps.redis, deps.prefix, deps.workerId, job.entryId).catch(() => {}),
      Math.max(50, Math.floor(options.claimIdleMs / 3)),
    );
    const run = (async () => {
      try {
        const outcome = job.taskId ? await runTask(deps, job.taskId) : "skipped";
        await ack(deps.redis, deps.prefix, job.entryId);
        options.onOutcome?.(job.taskId, outcome);
      } catch (error) {
        deps.log(
          `[worker] task ${job.taskId} interrupted: ${(error as Error).message}; it will be retried`,
        );
      } finally {
        clearInterval(touch);
      }
    })();
    running.add(run);
    void run.finally(() => running.delete(run));
  };

  const readLoop = async () => {
    await ensureGroup(deps.redis, deps.prefix);
    while (!stopped) {
      const free = concurrency - running.size;
      if (free <= 0) {
        await Promise.race(running);
        continue;
      }
      try {
        const jobs = await readJobs(options.blocking, deps.prefix, deps.workerId, free, BLOCK_MS);
        for (const job of jobs) dispatch(job);
      } catch (error) {
        if (stopped) break;
        deps.log(`[worker] reading jobs failed: ${(error as Error).message}`);
        await Bun.sleep(500);
      }
    }
  };

  const reclaimLoop = async () => {
    while (!stopped) {
      await Bun.sleep(Math.max(100, Math.floor(options.claimIdleMs / 2)));
      const free = concurrency - running.size;
      if (stopped || free <= 0) continue;
      try {
        const jobs = await reclaimJobs(
          deps.redis,
          deps.prefix,
          deps.workerId,
          options.claimIdleMs,
          free,
        );
        for (const job of jobs) dispatch(job);
      } catch (error) {
        deps.log(`[worker] reclaiming jobs failed: ${(error as Error).message}`);
      }
    }
  };

  const loops = Promise.all([readLoop(), reclaimLoop()]);
  return {
    async stop() {
      stopped = true;
      await loops.catch(() => {});
      await Promise.allSettled(running);
    },
  };
}
