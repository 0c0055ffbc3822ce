import type { Sql } from "@gw/store";

/**
 * A day is closed an hour after it ends: a ledger entry's `created_at` is its transaction's
 * start, and no transaction runs that long, so nothing lands in a closed day later.
 */
const GRACE_MS = 60 * 60 * 1000;
const DAY_MS = 86_400_000;
/** Days rolled per pass, so a first pass over a long history does not run for minutes. */
const MAX_DAYS_PER_PASS = 31;

const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Sums closed UTC days of spend (charges and refunds) into `spend_daily`, each day once:
 * the days after the high-water mark (at most a month per pass) in one scan and one
 * transaction with the mark, so two workers never double a day. Returns the days rolled.
 */
export async function rollSpendDays(sql: Sql, nowMs = Date.now()): Promise<number> {
  const lastClosed = dayText(Math.floor((nowMs - GRACE_MS) / DAY_MS) * DAY_MS - DAY_MS);
  return sql.begin(async (tx) => {
    const [state] = await tx<{ through: string | null; first: string | null }[]>`
      select (select rolled_through::text from spend_daily_state for update) as through,
             (select (min(created_at) at time zone 'utc')::date::text from ledger_entries
              where kind in ('charge', 'refund')) as first`;
    const from = state?.through
      ? dayText(Date.parse(`${state.through}T00:00:00Z`) + DAY_MS)
      : state?.first;
    if (!from || from > lastClosed) return 0;
    const through = dayText(
      Math.min(
        Date.parse(`${from}T00:00:00Z`) + (MAX_DAYS_PER_PASS - 1) * DAY_MS,
        Date.parse(`${lastClosed}T00:00:00Z`),
      ),
    );
    await tx`
      insert into spend_daily (user_id, day, model, requests, net_quota, prompt_tokens, completion_tokens)
      select user_id, (created_at at time zone 'utc')::date, coalesce(model, ''),
             count(*) filter (where kind = 'charge'), sum(-delta_quota),
             sum(prompt_tokens), sum(completion_tokens)
      from ledger_entries
      where kind in ('charge', 'refund')
        and created_at >= ${from}::date at time zone 'utc'
        and created_at < (${through}::date + 1) at time zone 'utc'
      group by 1, 2, 3`;
    await tx`
      insert into spend_daily_state (id, rolled_through) values (true, ${through}::date)
      on conflict (id) do update set rolled_through = excluded.rolled_through`;
    return (Date.parse(`${through}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
  }) as Promise<number>;
}

/** The last UTC day (as Unix seconds of its midnight) that `spend_daily` holds, or null. */
export async function rolledThrough(sql: Sql): Promise<number | null> {
  const [row] = await sql<{ through: string }[]>`
    select rolled_through::text as through from spend_daily_state`;
  return row ? Date.parse(`${row.through}T00:00:00Z`) / 1000 : null;
}
