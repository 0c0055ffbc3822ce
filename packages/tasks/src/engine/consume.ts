import { duplicateClient, type RedisClient } from "@gw/store";
import { ack, enqueue, ensureGroup, type Job, readJobs, reclaimJobs, touchJobs } from "../queue.ts";
import { type RunDeps, type RunOutcome, runJob } from "./run.ts";

export interface ConsumerOptions {
  run: RunDeps;
  redis: RedisClient;
  prefix: string;
  partitions: number;
  /** Jobs one worker holds at once (running or waiting for their lane). */
  capacity: number;
  /** A job unacknowledged this long is taken from the consumer that had it (it died). */
  claimIdleMs: number;
  onOutcome?: (taskId: string, outcome: RunOutcome) => void;
}

const BLOCK_MS = 1_000;
/** Jobs one read takes at most. */
const READ_COUNT = 128;

/**
 * Pulls jobs from every partition through the consumer group (one blocking connection
 * per partition) and runs them, up to `capacity` at once; each kind's lane bounds how many
 * reach one upstream. A job is acknowledged once its task has ended (or was not this
 * worker's to run); a crash leaves it pending, and after `claimIdleMs` another worker's
 * reclaim loop takes it over. One timer keeps all running jobs claimed.
 */
export function startConsumer(options: ConsumerOptions): Consumer {
  const { redis, prefix } = options;
  // Runs still going when the grace period of a stop is over are abandoned through this.
  const handBack = new AbortController();
  const run: RunDeps = { ...options.run, shutdown: handBack.signal };
  const running = new Map<string, { job: Job; done: Promise<void> }>();
  let stopped = false;
  let wake: () => void = () => {};
  const stopping = new Promise<void>((resolve) => {
    wake = resolve;
  });
  /** Sleeps, but not past a stop. */
  const pause = (ms: number) => Promise.race([Bun.sleep(ms), stopping]);
  /** Read loops waiting for a free slot; every one is woken when a job ends. */
  let waiting: (() => void)[] = [];
  const freed = () => {
    const wake = waiting;
    waiting = [];
    for (const resume of wake) resume();
  };
  const blocking: RedisClient[] = [];

  const dispatch = (job: Job) => {
    const key = `${job.partition}:${job.entryId}`;
    if (running.has(key)) return;
    const done = (async () => {
      try {
        const outcome = job.taskId ? await runJob(run, job) : "skipped";
        // A task handed back goes to the end of its stream for another worker, at once.
        if (outcome === "handed_back")
          await enqueue(redis, prefix, options.partitions, [{ taskId: job.taskId }]);
        await ack(redis, prefix, job);
        options.onOutcome?.(job.taskId, outcome);
      } catch (error) {
        run.log(
          `[worker] task ${job.taskId} interrupted: ${(error as Error).message}; it will be retried`,
        );
      } finally {
        running.delete(key);
        freed();
      }
    })();
    running.set(key, { job, done });
  };

  const untilFree = () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
    });

  const readLoop = async (partition: number) => {
    const connection = duplicateClient(redis);
    blocking.push(connection);
    await ensureGroup(redis, prefix, partition).catch(() => {});
    while (!stopped) {
      const free = options.capacity - running.size;
      if (free <= 0) {
        await untilFree();
        continue;
      }
      try {
        const jobs = await readJobs(
          connection,
          prefix,
          partition,
          run.workerId,
          Math.min(free, READ_COUNT),
          BLOCK_MS,
        );
        for (const job of jobs) dispatch(job);
      } catch (error) {
        if (stopped) break;
        run.backendError?.("redis");
        run.log(`[worker] reading jobs failed: ${(error as Error).message}`);
        await pause(500);
      }
    }
  };

  const reclaimLoop = async () => {
    while (!stopped) {
      await pause(Math.max(100, Math.floor(options.claimIdleMs / 2)));
      for (let partition = 0; partition < options.partitions && !stopped; partition++) {
        const free = options.capacity - running.size;
        if (free <= 0) break;
        try {
          const jobs = await reclaimJobs(
            redis,
            prefix,
            partition,
            run.workerId,
            options.claimIdleMs,
            free,
          );
          for (const job of jobs) dispatch(job);
        } catch (error) {
          run.backendError?.("redis");
          run.log(`[worker] reclaiming jobs failed: ${(error as Error).message}`);
        }
      }
    }
  };

  const touch = setInterval(
    () => {
      if (running.size === 0) return;
      const jobs = [...running.values()].map((entry) => entry.job);
      void touchJobs(redis, prefix, run.workerId, jobs).catch(() => {});
    },
    Math.max(50, Math.floor(options.claimIdleMs / 3)),
  );

  const loops = Promise.all([
    ...Array.from({ length: options.partitions }, (_, partition) => readLoop(partition)),
    reclaimLoop(),
  ]);
  const settledAll = () => Promise.allSettled([...running.values()].map((entry) => entry.done));
  return {
    running: () => running.size,
    async stop(graceMs = Number.POSITIVE_INFINITY) {
      stopped = true;
      wake();
      freed();
      // A blocked XREADGROUP ends when its connection does: no job is taken after this.
      for (const connection of blocking) connection.disconnect();
      await loops.catch(() => {});
      if (running.size > 0) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const graceOver = new Promise<"over">((resolve) => {
          if (Number.isFinite(graceMs)) timer = setTimeout(() => resolve("over"), graceMs);
        });
        const ended = await Promise.race([settledAll(), graceOver]);
        clearTimeout(timer);
        if (ended === "over") {
          run.log(`[worker] grace period over: handing back ${running.size} running tasks`);
          handBack.abort();
          await settledAll();
        }
      }
      clearInterval(touch);
    },
  };
}

export interface Consumer {
  /** Jobs running now. */
  running(): number;
  /**
   * Stops taking jobs at once, then waits for the running ones up to `graceMs`; those
   * still going are handed back (their tasks queued again for another worker). Nothing
   * is left half-settled: a settlement under way is never aborted.
   */
  stop(graceMs?: number): Promise<void>;
}
