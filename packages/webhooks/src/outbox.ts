import type { Sql } from "@gw/store";

export interface NewDelivery {
  taskId: string;
  userId: bigint;
  url: string;
}

/**
 * Records deliveries inside the caller's transaction (the one that settles the tasks), so
 * a task that ended has its delivery exactly when its settlement committed. A task is told
 * once: a second settlement attempt of the same task records nothing.
 */
export async function recordDeliveries(tx: Sql, deliveries: NewDelivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  await tx`
    insert into webhook_deliveries (task_id, user_id, url)
    select * from unnest(
      ${deliveries.map((each) => each.taskId)}::text[],
      ${deliveries.map((each) => each.userId.toString())}::bigint[],
      ${deliveries.map((each) => each.url)}::text[])
    on conflict (task_id) do nothing`;
}

export interface DueDelivery {
  id: bigint;
  task_id: string;
  user_id: bigint;
  url: string;
  attempts: number;
  secret: string;
}

/**
 * Takes up to `limit` due deliveries for this process: each is leased by moving its
 * `next_at` past the lease, so another worker does not send it at the same time, and a
 * process that dies mid-send leaves it due again when the lease runs out.
 */
export async function takeDue(sql: Sql, limit: number, leaseMs: number): Promise<DueDelivery[]> {
  return sql<DueDelivery[]>`
    with due as (
      select id from webhook_deliveries
      where delivered_at is null and given_up_at is null and next_at <= now()
      order by next_at limit ${limit} for update skip locked
    )
    update webhook_deliveries d
    set next_at = now() + ${leaseMs} * interval '1 millisecond'
    from due, users u
    where d.id = due.id and u.id = d.user_id
    returning d.id, d.task_id, d.user_id, d.url, d.attempts,
      coalesce(u.webhook_secret, '') as secret`;
}

export async function markDelivered(sql: Sql, id: bigint): Promise<void> {
  await sql`update webhook_deliveries set delivered_at = now(), attempts = attempts + 1,
            last_error = null where id = ${id.toString()}`;
}

/** A failed attempt: due again after `retryMs`, or given up after the last attempt. */
export async function markFailed(
  sql: Sql,
  id: bigint,
  error: string,
  retryMs: number | null,
): Promise<void> {
  await sql`
    update webhook_deliveries set attempts = attempts + 1, last_error = ${error.slice(0, 500)},
      next_at = case when ${retryMs}::bigint is null then next_at
                     else now() + ${retryMs} * interval '1 millisecond' end,
      given_up_at = case when ${retryMs}::bigint is null then now() else null end
    where id = ${id.toString()}`;
}
