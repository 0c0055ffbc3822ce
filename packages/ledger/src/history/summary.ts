import type { Sql } from "@gw/store";
import type { Period } from "./records.ts";

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

/**
 * The account's spend over a period, summed by Postgres per model (spec 2.12): an
 * index-only scan of `ledger_entries_spend_period`, never the records in the api.
 */
export async function spendSummary(
  sql: Sql,
  userId: bigint,
  period: Period,
): Promise<SpendSummary> {
  const rows = await sql<Row[]>`
    select model,
           count(*) filter (where kind = 'charge') as requests,
           coalesce(sum(-delta_quota), 0) as net,
           coalesce(sum(prompt_tokens), 0) as prompt_tokens,
           coalesce(sum(completion_tokens), 0) as completion_tokens
    from ledger_entries
    where user_id = ${userId.toString()}
      and kind in ('charge', 'refund')
      and created_at >= to_timestamp(${period.start})
      and created_at < to_timestamp(${period.end})
    group by model
    order by model nulls last`;
  const byModel = rows.map((row) => ({
    model: row.model,
    requests: Number(row.requests),
    netQuota: BigInt(row.net),
    promptTokens: Number(row.prompt_tokens),
    completionTokens: Number(row.completion_tokens),
  }));
  return {
    requests: byModel.reduce((sum, model) => sum + model.requests, 0),
    netQuota: byModel.reduce((sum, model) => sum + model.netQuota, 0n),
    byModel,
  };
}
