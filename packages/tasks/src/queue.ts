import type { RedisClient } from "@gw/store";

/** The consumer group every worker reads image jobs through. */
export const GROUP = "workers";
/** Entries beyond this are trimmed; Postgres still has every task, so none is lost. */
const MAX_STREAM_LENGTH = 100_000;

/** The image job stream. Its own hash tag keeps it on one cluster slot. */
export function streamKey(prefix: string): string {
  return `${prefix}:{jobs}:images`;
}

export interface Job {
  /** The stream entry, for XACK. */
  entryId: string;
  taskId: string;
}

/** Adds a job for a task; a task may be enqueued more than once, the claim decides. */
export async function enqueue(redis: RedisClient, prefix: string, taskId: string): Promise<void> {
  await redis.xadd(streamKey(prefix), "MAXLEN", "~", MAX_STREAM_LENGTH, "*", "task", taskId);
}

/**
 * Creates the group (and the stream) if missing, reading from the start so jobs added
 * before the group existed (after a flush) are not skipped.
 */
export async function ensureGroup(redis: RedisClient, prefix: string): Promise<void> {
  try {
    await redis.xgroup("CREATE", streamKey(prefix), GROUP, "0", "MKSTREAM");
  } catch (error) {
    if (!(error instanceof Error && error.message.startsWith("BUSYGROUP"))) throw error;
  }
}

type Entries = [id: string, fields: string[]][];

function toJobs(entries: Entries | null | undefined): Job[] {
  const jobs: Job[] = [];
  for (const [entryId, fields] of entries ?? []) {
    const at = fields.indexOf("task");
    const taskId = at >= 0 ? fields[at + 1] : undefined;
    jobs.push({ entryId, taskId: taskId ?? "" });
  }
  return jobs;
}

/**
 * New jobs for this consumer, waiting at most `blockMs`. Takes a connection of its
 * own (BLOCK holds it). A missing group (Redis was flushed) is created again.
 */
export async function readJobs(
  redis: RedisClient,
  prefix: string,
  consumer: string,
  count: number,
  blockMs: number,
): Promise<Job[]> {
  const key = streamKey(prefix);
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
    return toJobs(reply?.[0]?.[1]);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("NOGROUP")) {
      await ensureGroup(redis, prefix);
      return [];
    }
    throw error;
  }
}

/** Jobs another consumer took but did not acknowledge for `minIdleMs` (it died). */
export async function reclaimJobs(
  redis: RedisClient,
  prefix: string,
  consumer: string,
  minIdleMs: number,
  count: number,
): Promise<Job[]> {
  try {
    const reply = (await redis.xautoclaim(
      streamKey(prefix),
      GROUP,
      consumer,
      minIdleMs,
      "0-0",
      "COUNT",
      count,
    )) as [string, Entries, string[]?];
    return toJobs(reply[1]).filter((job) => job.taskId !== "");
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("NOGROUP")) return [];
    throw error;
  }
}

export async function ack(redis: RedisClient, prefix: string, entryId: string): Promise<void> {
  await redis.xack(streamKey(prefix), GROUP, entryId);
}

/** Keeps a job this consumer is still running from being reclaimed by another. */
export async function touchJob(
  redis: RedisClient,
  prefix: string,
  consumer: string,
  entryId: string,
): Promise<void> {
  await redis.call("XCLAIM", streamKey(prefix), GROUP, consumer, "0", entryId, "JUSTID");
}
