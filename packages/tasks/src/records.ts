import type { Sql } from "@gw/store";
import type { PriceSnapshot } from "@gw/tariffs";

export type TaskStatus = "queued" | "processing" | "completed" | "failed";

/** A stored result file; `index` and `name` are set on segment-map masks. */
export interface TaskFile {
  key: string;
  content_type: string;
  index?: number;
  name?: string;
}

export interface TaskRow {
  id: string;
  user_id: bigint;
  key_id: bigint | null;
  kind: "image";
  model: string;
  requested_model: string;
  operation: string;
  prompt: string | null;
  input: Record<string, unknown>;
  response_format: "url" | "b64_json";
  price: PriceSnapshot;
  hold_quota: bigint;
  status: TaskStatus;
  attempts: number;
  lease_owner: string | null;
  lease_until: Date | null;
  result: { files: TaskFile[] } | null;
  billing: Record<string, unknown> | null;
  charged_quota: bigint | null;
  fail_code: string | null;
  fail_reason: string | null;
  idempotency_key: string | null;
  request_hash: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface NewTask {
  id: string;
  userId: bigint;
  keyId: bigint | null;
  model: string;
  requestedModel: string;
  operation: string;
  prompt: string | null;
  input: Record<string, unknown>;
  responseFormat: "url" | "b64_json";
  price: PriceSnapshot;
  holdQuota: bigint;
  idempotencyKey: string | null;
  requestHash: string | null;
}

export async function insertTask(sql: Sql, task: NewTask): Promise<TaskRow> {
  const [row] = await sql<TaskRow[]>`
    insert into tasks (id, user_id, key_id, kind, model, requested_model, operation, prompt,
      input, response_format, price, hold_quota, idempotency_key, request_hash)
    values (${task.id}, ${task.userId}, ${task.keyId}, 'image', ${task.model},
      ${task.requestedModel}, ${task.operation}, ${task.prompt}, ${sql.json(task.input as never)},
      ${task.responseFormat}, ${sql.json(task.price as never)}, ${task.holdQuota},
      ${task.idempotencyKey}, ${task.requestHash})
    returning *`;
  return row!;
}

export async function findTask(sql: Sql, id: string): Promise<TaskRow | null> {
  const [row] = await sql<TaskRow[]>`select * from tasks where id = ${id}`;
  return row ?? null;
}

/** A task of this owner only: another account's task reads exactly like a missing one. */
export async function findOwnTask(sql: Sql, id: string, userId: bigint): Promise<TaskRow | null> {
  const [row] = await sql<TaskRow[]>`select * from tasks where id = ${id} and user_id = ${userId}`;
  return row ?? null;
}

export async function findByIdempotencyKey(
  sql: Sql,
  userId: bigint,
  key: string,
): Promise<TaskRow | null> {
  const [row] = await sql<TaskRow[]>`
    select * from tasks where user_id = ${userId} and idempotency_key = ${key}`;
  return row ?? null;
}

/**
 * Takes a task for one run: a queued task, or a processing one whose lease ran out
 * (its worker died). Postgres decides, so of two workers given the same job one wins.
 */
export async function claimTask(
  sql: Sql,
  id: string,
  owner: string,
  leaseMs: number,
): Promise<TaskRow | null> {
  const [row] = await sql<TaskRow[]>`
    update tasks set status = 'processing', attempts = attempts + 1, lease_owner = ${owner},
      lease_until = now() + ${leaseMs} * interval '1 millisecond',
      started_at = coalesce(started_at, now())
    where id = ${id}
      and (status = 'queued' or (status = 'processing' and lease_until < now()))
    returning *`;
  return row ?? null;
}

/** Keeps a running task's lease; false when another worker took it over meanwhile. */
export async function extendLease(
  sql: Sql,
  id: string,
  owner: string,
  leaseMs: number,
): Promise<boolean> {
  const rows = await sql`
    update tasks set lease_until = now() + ${leaseMs} * interval '1 millisecond'
    where id = ${id} and status = 'processing' and lease_owner = ${owner}
    returning id`;
  return rows.length > 0;
}

/** Marks the run of `owner` completed; false when it no longer owns the task. */
export async function completeTask(
  sql: Sql,
  id: string,
  owner: string,
  files: TaskFile[],
  billing: unknown,
  chargedQuota: bigint,
): Promise<boolean> {
  const rows = await sql`
    update tasks set status = 'completed', result = ${sql.json({ files } as never)},
      billing = ${sql.json(billing as never)}, charged_quota = ${chargedQuota},
      finished_at = now(), lease_owner = null, lease_until = null
    where id = ${id} and status = 'processing' and lease_owner = ${owner}
    returning id`;
  return rows.length > 0;
}

/** Marks a task failed with its reason; `owner` null fails it whoever runs it. */
export async function failTask(
  sql: Sql,
  id: string,
  owner: string | null,
  code: string,
  reason: string,
): Promise<boolean> {
  const rows = await sql`
    update tasks set status = 'failed', fail_code = ${code}, fail_reason = ${reason.slice(0, 1000)},
      finished_at = now(), lease_owner = null, lease_until = null
    where id = ${id} and status in ('queued', 'processing')
      and (${owner}::text is null or lease_owner = ${owner})
    returning id`;
  return rows.length > 0;
}

/**
 * Tasks that may have lost their job message: queued ones enqueued longer ago than
 * `afterMs` (Redis was flushed or the enqueue failed) and processing ones whose lease
 * ran out (the worker died). Their `enqueued_at` moves on so they are listed once per period.
 */
export async function takeStrandedTasks(sql: Sql, afterMs: number, limit: number) {
  return sql<{ id: string }[]>`
    update tasks set enqueued_at = now()
    where id in (
      select id from tasks
      where status in ('queued', 'processing')
        and enqueued_at < now() - ${afterMs} * interval '1 millisecond'
        and (status = 'queued' or lease_until < now())
      order by enqueued_at
      limit ${limit}
      for update skip locked)
    returning id`;
}
