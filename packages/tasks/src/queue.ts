import type { RedisClient } from "@gw/store";

/** The consumer group every worker reads jobs through, on every partition. */
export const GROUP = "workers";
/** Entries beyond this are trimmed; Postgres still has every task, so none is lost. */
const MAX_STREAM_LENGTH = 100_000;
/** Job partitions when JOB_PARTITIONS is not set; api and workers must agree on it. */
export const DEFAULT_PARTITIONS = 4;

/**
 * Job stream `n` of `partitions`. Each has its own hash tag (`{jobs:<n>}`), so on Redis
 * Cluster the queue spreads over the slots, and every script or command touches one.
 */
export function streamKey(prefix: string, partition: number): string {
  return `${prefix}:{jobs:${partition}}`;
}

/** The partition of a task: a stable hash of its id. */
export function partitionOf(taskId: string, partitions: number): number {
  let hash = 2166136261;
  for (let index = 0; index < taskId.length; index++) {
    hash ^= taskId.charCodeAt(index);
    hash = Math.imul(hash, 16777619);
  }
  return (hash >>> 0) % Math.max(1, partitions);
}

export interface Job {
  partition: number;
  /** The stream entry, for XACK. */
  entryId: string;
  taskId: string;
  /**
   * The task as submitted (JSON), when the submitter put it in the job: the first
   * delivery then runs without reading Postgres. Requeued jobs carry only the id.
   */
  task: string | null;
  /**
   * True when a run may have gone before: a job taken over from another consumer (it
   * died or stalled), or one the sweep enqueued again from Postgres.
   */
  reclaimed: boolean;
}

export interface NewJob {
  taskId: string;
  task?: string;
  /** Enqueued again by the sweep: a first run may have died before it claimed the task. */
  again?: boolean;
}

/**
 * Adds jobs (auto-pipelined by the client, per node on a cluster); a task may be enqueued
 * more than once, settlement decides which run counts.
 */
export async function enqueue(
  redis: RedisClient,
  prefix: string,
  partitions: number,
  jobs: NewJob[],
): Promise<void> {
  await Promise.all(
    jobs.map((job) =>
      redis.xadd(
        streamKey(prefix, partitionOf(job.taskId, partitions)),
        "MAXLEN",
        "~",
        MAX_STREAM_LENGTH,
        "*",
        "task",
        job.taskId,
        ...(job.task ? ["row", job.task] : []),
        ...(job.again ? ["again", "1"] : []),
      ),
    ),
  );
}

/**
 * Creates the group (and the stream) if missing, reading from the start so jobs added
 * before the group existed (after a flush) are not skipped.
 */
export async function ensureGroup(
  redis: RedisClient,
  prefix: string,
  partition: number,
): Promise<void> {
  try {
    await redis.xgroup("CREATE", streamKey(prefix, partition), GROUP, "0", "MKSTREAM");
  } catch (error) {
    if (!(error instanceof Error && error.message.startsWith("BUSYGROUP"))) throw error;
  }
}

type Entries = [id: string, fields: string[]][];

function toJobs(partition: number, entries: Entries | null | undefined, reclaimed: boolean) {
  const jobs: Job[] = [];
  for (const [entryId, fields] of entries ?? []) {
    if (!fields) continue;
    const field = (name: string) => {
      const at = fields.indexOf(name);
      return at >= 0 && at % 2 === 0 ? (fields[at + 1] ?? null) : null;
    };
    jobs.push({
      partition,
      entryId,
      taskId: field("task") ?? "",
      task: field("row"),
      reclaimed: reclaimed || field("again") === "1",
    });
  }
  return jobs;
}

/**
 * New jobs of one partition for this consumer, waiting at most `blockMs`. Takes a
 * connection of its own (BLOCK holds it). A missing group (Redis was flushed) is created again.
 */
export async function readJobs(
  redis: RedisClient,
  prefix: string,
  partition: number,
  consumer: string,
  count: number,
  blockMs: number,
): Promise<Job[]> {
  const key = streamKey(prefix, partition);
  try {
    const reply = (await redis.xreadgroup(
      "GROUP",
      GROUP,
      consumer,
      "COUNT",
      count,
      "BLOCK",
      blockMs,
      "STREAMS",
      key,
      ">",
    )) as [string, Entries][] | null;
    return toJobs(partition, reply?.[0]?.[1], false);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("NOGROUP")) {
      await ensureGroup(redis, prefix, partition);
      return [];
    }
    throw error;
  }
}

/** Jobs of one partition another consumer took but did not acknowledge for `minIdleMs`. */
export async function reclaimJobs(
  redis: RedisClient,
  prefix: string,
  partition: number,
  consumer: string,
  minIdleMs: number,
  count: number,
): Promise<Job[]> {
  try {
    const reply = (await redis.xautoclaim(
      streamKey(prefix, partition),
      GROUP,
      consumer,
      minIdleMs,
      "0-0",
      "COUNT",
      count,
    )) as [string, Entries, string[]?];
    return toJobs(partition, reply[1], true).filter((job) => job.taskId !== "");
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("NOGROUP")) return [];
    throw error;
  }
}

export async function ack(redis: RedisClient, prefix: string, job: Job): Promise<void> {
  await redis.xack(streamKey(prefix, job.partition), GROUP, job.entryId);
}

/** Keeps jobs this consumer is still running from being reclaimed by another, one call per partition. */
export async function touchJobs(
  redis: RedisClient,
  prefix: string,
  consumer: string,
  jobs: Job[],
): Promise<void> {
  const byPartition = new Map<number, string[]>();
  for (const job of jobs) {
    const ids = byPartition.get(job.partition) ?? [];
    ids.push(job.entryId);
    byPartition.set(job.partition, ids);
  }
  await Promise.all(
    [...byPartition].map(([partition, ids]) =>
      redis.call("XCLAIM", streamKey(prefix, partition), GROUP, consumer, "0", ...ids, "JUSTID"),
    ),
  );
}

export interface PartitionStats {
  partition: number;
  /** Jobs not yet delivered to a worker plus jobs delivered and not acknowledged. */
  depth: number;
  /** Age of the oldest of those jobs, 0 when there are none. */
  oldestAgeMs: number;
}

const idTime = (id: string | null | undefined) => (id ? Number(id.split("-")[0]) : Number.NaN);

/** Depth and oldest job age of every partition, for the metrics (a few reads per partition). */
export async function queueStats(
  redis: RedisClient,
  prefix: string,
  partitions: number,
  now = Date.now(),
): Promise<PartitionStats[]> {
  return Promise.all(
    Array.from({ length: partitions }, async (_, partition) => {
      const key = streamKey(prefix, partition);
      const groups = (await redis.call("XINFO", "GROUPS", key).catch(() => [])) as unknown[][];
      const group = groups
        .map((fields) => {
          const info = new Map<string, unknown>();
          for (let index = 0; index + 1 < fields.length; index += 2)
            info.set(String(fields[index]), fields[index + 1]);
          return info;
        })
        .find((info) => info.get("name") === GROUP);
      if (!group) return { partition, depth: 0, oldestAgeMs: 0 };
      const pending = Number(group.get("pending") ?? 0);
      const lastDelivered = String(group.get("last-delivered-id") ?? "0-0");
      const [summary, next] = await Promise.all([
        pending > 0
          ? (redis.xpending(key, GROUP) as Promise<[number, string | null, ...unknown[]]>)
          : Promise.resolve(null),
        redis.xrange(key, `(${lastDelivered}`, "+", "COUNT", 1),
      ]);
      // `lag` is what Redis 7 counts as undelivered; without it, count the undelivered range.
      const lag = group.get("lag");
      const undelivered =
        typeof lag === "number"
          ? lag
          : next.length === 0
            ? 0
            : (await redis.xrange(key, `(${lastDelivered}`, "+")).length;
      const oldest = Math.min(
        ...[idTime(summary?.[1]), idTime(next[0]?.[0])].filter((time) => Number.isFinite(time)),
      );
      return {
        partition,
        depth: pending + undelivered,
        oldestAgeMs: Number.isFinite(oldest) ? Math.max(0, now - oldest) : 0,
      };
    }),
  );
}
