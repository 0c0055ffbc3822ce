import type { Sql } from "@gw/store";

/** How many of a key's newest records `GET /api/log/token` shows (spec 4.10: the server's limit). */
export const KEY_LOG_LIMIT = 100;

export interface KeyLogRecord {
  createdAt: Date;
  requestId: string | null;
  model: string | null;
  kind: "charge" | "refund";
  /** Positive for a charge, negative for a refund. */
  quota: bigint;
  promptTokens: number;
  completionTokens: number;
  /** From the hold (the start of the call) to the record, in whole seconds. */
  useTimeSeconds: number;
  isStream: boolean;
  /** What the service knows beyond the columns: estimated_prompt_tokens and the like. */
  other: Record<string, unknown>;
}

interface Row {
  created_at: Date;
  request_id: string | null;
  model: string | null;
  kind: "charge" | "refund";
  delta_quota: string;
  prompt_tokens: number;
  completion_tokens: number;
  use_time: number | null;
  is_stream: boolean;
  other: Record<string, unknown> | null;
}

/** The key's newest charges and refunds, newest first (index `ledger_entries_key`). */
export async function keyLog(
  sql: Sql,
  keyId: bigint,
  limit = KEY_LOG_LIMIT,
): Promise<KeyLogRecord[]> {
  const rows = await sql<Row[]>`
    select e.created_at, e.request_id, e.model, e.kind, e.delta_quota,
           e.prompt_tokens, e.completion_tokens, e.is_stream, e.other,
           floor(extract(epoch from e.created_at - h.created_at))::int as use_time
    from ledger_entries e left join holds h on h.id = e.hold_id
    where e.key_id = ${keyId.toString()} and e.kind in ('charge', 'refund')
    order by e.id desc
    limit ${limit}`;
  return rows.map((row) => ({
    createdAt: row.created_at,
    requestId: row.request_id,
    model: row.model,
    kind: row.kind,
    quota: -BigInt(row.delta_quota),
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    useTimeSeconds: Math.max(0, row.use_time ?? 0),
    isStream: row.is_stream,
    other: row.other ?? {},
  }));
}
