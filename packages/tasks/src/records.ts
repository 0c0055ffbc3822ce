import type { Sql } from "@gw/store";
import type { PriceSnapshot } from "@gw/tariffs";

export type MoneyMode = "hold" | "reserve";

export type TaskStatus = "queued" | "processing" | "completed" | "failed";

/** A stored result file; `index` and `name` are set on segment-map masks. */
export interface TaskFile {
  key: string;
  content_type: string;
  index?: number;
  name?: string;
  /** Seconds of audio or video in the file, when it has a duration. */
  seconds?: number;
}

export interface TaskRow {
  id: string;
  user_id: bigint;
  key_id: bigint | null;
  /** What the task makes: `image` (audio and video next); a kind's runner does the work. */
  kind: string;
  /** hold -> post/void, or reserve -> charge -> refund (spec 2.6). */
  money: MoneyMode;
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
  /** Told when the task ends (a signed POST), when the caller gave one. */
  webhook_url: string | null;
  /** The x-request-id of the call that made it, carried into the worker's log lines. */
  request_id: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface NewTask {
  id: string;
  kind: string;
  /** hold when absent. */
  money?: MoneyMode;
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
  webhookUrl?: string | null;
  requestId?: string | null;
}

export async function insertTask(sql: Sql, task: NewTask): Promise<TaskRow> {
  const [row] = await sql<TaskRow[]>`
    insert into tasks (id, user_id, key_id, kind, model, requested_model, operation, prompt,
      input, response_format, price, hold_quota, idempotency_key, request_hash)
    values (${task.id}, ${task.userId}, ${task.keyId}, ${task.kind}, ${task.model},
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

/** The caller's tasks of one kind among these ids, in the order asked; others are left out. */
export async function findOwnTasks(
  sql: Sql,
  ids: string[],
  userId: bigint,
  kind: string,
): Promise<TaskRow[]> {
  if (ids.length === 0) return [];
  const rows = await sql<TaskRow[]>`
    select * from tasks where id = any(${ids}) and user_id = ${userId} and kind = ${kind}`;
  const byId = new Map(rows.map((row) => [row.id, row]));
  return [...new Set(ids)].flatMap((id) => byId.get(id) ?? []);
}

/** Which of these tasks have finished: one query for every request waiting in a process. */
export async function finishedAmong(sql: Sql, ids: string[]): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from tasks where id = any(${ids}) and status in ('completed', 'failed')`;
  return rows.map((row) => row.id);
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
 * `reclaimed`: the job was taken over from a consumer that had it, so a first run went
 * before, even if it died before it claimed the task; it counts as an attempt.
 */
export async function claimTask(
  sql: Sql,
  id: string,
  owner: string,
  leaseMs: number,
  { reclaimed = false }: { reclaimed?: boolean } = {},
): Promise<TaskRow | null> {
  const [row] = await sql<TaskRow[]>`
    update tasks set status = 'processing',
      attempts = case when ${reclaimed} and attempts = 0 then 2 else attempts + 1 end,
      lease_owner = ${owner},
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

/**
 * Gives a task back (its worker stopped before the run ended): queued again, with the
 * attempt not counted. False when `owner` no longer held it.
 */
export async function releaseTask(sql: Sql, id: string, owner: string): Promise<boolean> {
  const rows = await sql`
    update tasks set status = 'queued', lease_owner = null, lease_until = null,
      attempts = greatest(attempts - 1, 0)
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

/**
 * Who may settle a run: `owner` when it claimed the task in Postgres, or any run while
 * the task is still `queued` (a first run goes straight from the job stream, with no
 * claim; if another run claimed the task meanwhile, that one owns it).
 */
const OWNED = (sql: Sql, owner: string) =>
  sql`(status = 'queued' or (status = 'processing' and lease_owner = ${owner}))`;

/** What a finished task's row changed to (see `Finished`). */
export interface FinishedRow {
  id: string;
  status: TaskStatus;
  result: TaskRow["result"];
  billing: TaskRow["billing"];
  charged_quota: bigint | null;
  fail_code: string | null;
  fail_reason: string | null;
  started_at: Date | null;
  finished_at: Date;
}

const FINISHED_COLUMNS = (sql: Sql) =>
  sql`id, status, result, billing, charged_quota, fail_code, fail_reason, started_at, finished_at`;

/** Completes the run of `owner`; null when it no longer owns the task. */
export async function completeRun(
  sql: Sql,
  run: {
    id: string;
    owner: string;
    files: TaskFile[];
    billing: unknown;
    chargedQuota: bigint;
    startedAt: Date;
  },
): Promise<FinishedRow | null> {
  const [row] = await sql<FinishedRow[]>`
    update tasks set status = 'completed', result = ${sql.json({ files: run.files } as never)},
      billing = ${sql.json(run.billing as never)}, charged_quota = ${run.chargedQuota},
      attempts = greatest(attempts, 1), started_at = coalesce(started_at, ${run.startedAt}),
      finished_at = now(), lease_owner = null, lease_until = null
    where id = ${run.id} and ${OWNED(sql, run.owner)}
    returning ${FINISHED_COLUMNS(sql)}`;
  return row ?? null;
}

/** Fails the run of `owner` (null: whoever runs it); null when it was not its to fail. */
export async function failRun(
  sql: Sql,
  run: { id: string; owner: string | null; code: string; reason: string },
): Promise<FinishedRow | null> {
  const [row] = await sql<FinishedRow[]>`
    update tasks set status = 'failed', fail_code = ${run.code},
      fail_reason = ${run.reason.slice(0, 1000)}, result = null, billing = null,
      charged_quota = null, finished_at = now(), lease_owner = null, lease_until = null,
      attempts = case when ${run.owner}::text is null then attempts else greatest(attempts, 1) end
    where id = ${run.id} and status in ('queued', 'processing')
      and (${run.owner}::text is null or ${OWNED(sql, run.owner ?? "")})
    returning ${FINISHED_COLUMNS(sql)}`;
  return row ?? null;
}

/** Turns a completed task into a failed one in the same transaction (its charge was refused). */
export async function refailCompleted(
  sql: Sql,
  id: string,
  code: string,
  reason: string,
): Promise<FinishedRow | null> {
  const [row] = await sql<FinishedRow[]>`
    update tasks set status = 'failed', fail_code = ${code}, fail_reason = ${reason},
      result = null, billing = null, charged_quota = null
    where id = ${id} and status = 'completed'
    returning ${FINISHED_COLUMNS(sql)}`;
  return row ?? null;
}

/**
 * Claims a task a first run took straight from the job stream, once it runs long enough
 * to need a lease: only while it is still queued, so a run another worker claimed (or a
 * finished task) makes this one stop.
 */
export async function claimQueued(
  sql: Sql,
  id: string,
  owner: string,
  leaseMs: number,
  startedAt: Date,
): Promise<boolean> {
  const rows = await sql`
    update tasks set status = 'processing', attempts = attempts + 1, lease_owner = ${owner},
      lease_until = now() + ${leaseMs} * interval '1 millisecond',
      started_at = coalesce(started_at, ${startedAt})
    where id = ${id} and status = 'queued'
    returning id`;
  return rows.length > 0;
}

/** Many task rows in one statement; answers them in the order given. */
export async function insertTasks(sql: Sql, tasks: NewTask[]): Promise<TaskRow[]> {
  if (tasks.length === 0) return [];
  const rows = tasks.map((task) => ({
    id: task.id,
    user_id: task.userId,
    key_id: task.keyId,
    kind: task.kind,
    money: task.money ?? "hold",
    model: task.model,
    requested_model: task.requestedModel,
    operation: task.operation,
    prompt: task.prompt,
    input: task.input,
    response_format: task.responseFormat,
    price: task.price,
    hold_quota: task.holdQuota,
    idempotency_key: task.idempotencyKey,
    request_hash: task.requestHash,
    webhook_url: task.webhookUrl ?? null,
    request_id: task.requestId ?? null,
  }));
  const inserted = await sql<TaskRow[]>`
    insert into tasks ${sql(rows as never, Object.keys(rows[0]!) as never)}
    returning *`;
  const byId = new Map(inserted.map((row) => [row.id, row]));
  return tasks.map((task) => byId.get(task.id)!);
}

export interface CompletedRun {
  id: string;
  owner: string;
  files: TaskFile[];
  billing: unknown;
  chargedQuota: bigint;
  startedAt: Date;
}

/** `completeRun` for many runs in one statement; null for each run that no longer owns its task. */
export async function completeRuns(
  sql: Sql,
  runs: CompletedRun[],
): Promise<(FinishedRow | null)[]> {
  if (runs.length === 0) return [];
  const rows = await sql<FinishedRow[]>`
    update tasks t set status = 'completed', result = v.result::jsonb, billing = v.billing::jsonb,
      charged_quota = v.charged, attempts = greatest(t.attempts, 1),
      started_at = coalesce(t.started_at, v.started), finished_at = now(),
      lease_owner = null, lease_until = null
    from (select unnest(${runs.map((run) => run.id)}::text[]) as id,
                 unnest(${runs.map((run) => run.owner)}::text[]) as owner,
                 unnest(${runs.map((run) => JSON.stringify({ files: run.files }))}::text[]) as result,
                 unnest(${runs.map((run) => JSON.stringify(run.billing))}::text[]) as billing,
                 unnest(${runs.map((run) => run.chargedQuota.toString())}::bigint[]) as charged,
                 unnest(${runs.map((run) => run.startedAt.toISOString())}::timestamptz[]) as started) v
    where t.id = v.id
      and (t.status = 'queued' or (t.status = 'processing' and t.lease_owner = v.owner))
    returning t.id, t.status, t.result, t.billing, t.charged_quota, t.fail_code, t.fail_reason,
      t.started_at, t.finished_at`;
  const byId = new Map(rows.map((row) => [row.id, row]));
  return runs.map((run) => byId.get(run.id) ?? null);
}

export interface FailedRun {
  id: string;
  /** null: whoever runs it (a refusal before any run). */
  owner: string | null;
  code: string;
  reason: string;
}

/** `failRun` for many runs in one statement; null for each one that was not its to fail. */
export async function failRuns(sql: Sql, runs: FailedRun[]): Promise<(FinishedRow | null)[]> {
  if (runs.length === 0) return [];
  const rows = await sql<FinishedRow[]>`
    update tasks t set status = 'failed', fail_code = v.code, fail_reason = v.reason,
      result = null, billing = null, charged_quota = null, finished_at = now(),
      lease_owner = null, lease_until = null,
      attempts = case when v.owner is null then t.attempts else greatest(t.attempts, 1) end
    from (select unnest(${runs.map((run) => run.id)}::text[]) as id,
                 unnest(${runs.map((run) => run.owner)}::text[]) as owner,
                 unnest(${runs.map((run) => run.code)}::text[]) as code,
                 unnest(${runs.map((run) => run.reason.slice(0, 1000))}::text[]) as reason) v
    where t.id = v.id and t.status in ('queued', 'processing')
      and (v.owner is null or t.status = 'queued'
           or (t.status = 'processing' and t.lease_owner = v.owner))
    returning t.id, t.status, t.result, t.billing, t.charged_quota, t.fail_code, t.fail_reason,
      t.started_at, t.finished_at`;
  const byId = new Map(rows.map((row) => [row.id, row]));
  return runs.map((run) => byId.get(run.id) ?? null);
}
