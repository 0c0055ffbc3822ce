import type { Storage } from "@gw/storage";
import type { RedisClient, Sql } from "@gw/store";
import { enqueue } from "../queue.ts";
import { takeStrandedTasks } from "../records.ts";
import { resultsPrefix, uploadsPrefix } from "../storage-keys.ts";

const BATCH = 500;

/**
 * Enqueues again, from Postgres, the tasks whose job may be gone: Redis was flushed or
 * restarted empty, an enqueue failed, or a worker died holding a task. A task enqueued
 * twice is harmless: settlement lets one run count. Requeued jobs carry only the id, so
 * their run claims the task in Postgres.
 */
export async function requeueStranded(
  sql: Sql,
  redis: RedisClient,
  prefix: string,
  partitions: number,
  afterMs: number,
): Promise<number> {
  const stranded = await takeStrandedTasks(sql, afterMs, BATCH);
  await enqueue(
    redis,
    prefix,
    partitions,
    stranded.map(({ id }) => ({ taskId: id, again: true })),
  );
  return stranded.length;
}

/**
 * Deletes result files older than the link lifetime (spec 8: links stop working once
 * the file is gone), and uploads of tasks that finished but whose worker died first.
 */
export async function deleteExpiredFiles(
  sql: Sql,
  storage: Storage,
  linkTtlSeconds: number,
): Promise<number> {
  const rows = await sql<{ id: string }[]>`
    update tasks set files_deleted_at = now()
    where id in (
      select id from tasks
      where status in ('completed', 'failed') and files_deleted_at is null
        and finished_at < now() - ${linkTtlSeconds} * interval '1 second'
      limit ${BATCH}
      for update skip locked)
    returning id`;
  for (const { id } of rows) {
    await storage.deletePrefix(resultsPrefix(id));
    await storage.deletePrefix(uploadsPrefix(id));
  }
  return rows.length;
}
