import type { Sql } from "@gw/store";
import type { Period } from "./records.ts";
import { rolledThrough } from "./rollup.ts";

export interface ModelSpend {
  model: string | null;
  /** Charge records; refunds do not count. */
  requests: number;
  /** Net of refunds. */
  netQuota: bigint;
  promptTokens: number;
  completionTokens: number;
}

export interface SpendSummary {
  requests: number;
  netQuota: bigint;
  byModel: ModelSpend[];
}

interface Row {
  model: string | null;
  requests: string;
  net: string;
  prompt_tokens: string;
  completion_tokens: string;
}

const DAY = 86_400;

/** Raw records of [start, end) summed per model, from the covering index. */
function rawSums(sql: Sql, userId: bigint, start: number, end: number) {
  return sql<Row[]>`
    select model,
           count(*) filter (where kind = 'charge') as requests,
           coalesce(sum(-delta_quota), 0) as net,
           coalesce(sum(prompt_tokens), 0) as prompt_tokens,
           coalesce(sum(completion_tokens), 0) as completion_tokens
    from ledger_entries
    where user_id = ${userId.toString()}
      and kind in ('charge', 'refund')
      and created_at >= to_timestamp(${start})
      and created_at < to_timestamp(${end})
    group by model`;
}

/** Whole rolled days [start, end) (midnights) summed per model from `spend_daily`. */
function dailySums(sql: Sql, userId: bigint, start: number, end: number) {
  return sql<Row[]>`
    select nullif(model, '') as model, sum(requests) as requests, sum(net_quota) as net,
           sum(prompt_tokens) as prompt_tokens, sum(completion_tokens) as completion_tokens
    from spend_daily
    where user_id = ${userId.toString()}
      and day >= (to_timestamp(${start}) at time zone 'utc')::date
      and day < (to_timestamp(${end}) at time zone 'utc')::date
    group by model`;
}

/**
 * The account's spend over a period, summed by Postgres per model (spec 2.12), never the
 * records in the api: whole days already rolled up come from `spend_daily` (a row per day
 * and model), the partial days at the edges and the days not yet rolled from the covering
 * index `ledger_entries_spend_period`.
 */
export async function spendSummary(
  sql: Sql,
  userId: bigint,
  period: Period,
): Promise<SpendSummary> {
  const through = await rolledThrough(sql);
  const rolledEnd = through === null ? null : through + DAY;
  const daysFrom = Math.ceil(period.start / DAY) * DAY;
  const daysTo = Math.min(Math.floor(period.end / DAY) * DAY, rolledEnd ?? 0);
  const parts =
    daysTo - daysFrom >= DAY
      ? await Promise.all([
          rawSums(sql, userId, period.start, daysFrom),
          dailySums(sql, userId, daysFrom, daysTo),
          rawSums(sql, userId, daysTo, period.end),
        ])
      : [await rawSums(sql, userId, period.start, period.end)];
  const merged = new Map<string | null, ModelSpend>();
  for (const row of parts.flat()) {
    const into = merged.get(row.model) ?? {
      model: row.model,
      requests: 0,
      netQuota: 0n,
      promptTokens: 0,
      completionTokens: 0,
    };
    into.requests += Number(row.requests);
    into.netQuota += BigInt(row.net);
    into.promptTokens += Number(row.prompt_tokens);
    into.completionTokens += Number(row.completion_tokens);
    merged.set(row.model, into);
  }
  const byModel = [...merged.values()].sort((a, b) =>
    a.model === null
      ? 1
      : b.model === null
        ? -1
        : a.model < b.model
          ? -1
          : a.model > b.model
            ? 1
            : 0,
  );
  return {
    requests: byModel.reduce((sum, model) => sum + model.requests, 0),
    netQuota: byModel.reduce((sum, model) => sum + model.netQuota, 0n),
    byModel,
  };
}
