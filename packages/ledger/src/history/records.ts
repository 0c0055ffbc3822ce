import type { Sql } from "@gw/store";

/** One charge or refund of an account's spend history (spec 2.11), amounts as spent. */
export interface SpendRecord {
  id: bigint;
  createdAt: Date;
  requestId: string | null;
  model: string | null;
  kind: "charge" | "refund";
  /** Quota spent: positive for a charge, negative for a refund. */
  quota: bigint;
  promptTokens: number;
  completionTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** A half-open period [start, end) in Unix seconds. */
export interface Period {
  start: number;
  end: number;
}

export interface PageQuery extends Period {
  userId: bigint;
  limit: number;
  /** Only records with a smaller id: the `next_cursor` of the previous page. */
  before?: bigint;
}

export interface Page {
  records: SpendRecord[];
  /** Set when another page exists: pass it as `before` for the next one. */
  nextCursor: bigint | null;
}

interface Row {
  id: string;
  created_at: Date;
  request_id: string | null;
  model: string | null;
  kind: "charge" | "refund";
  delta_quota: string;
  prompt_tokens: number;
  completion_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

const toRecord = (row: Row): SpendRecord => ({
  id: BigInt(row.id),
  createdAt: row.created_at,
  requestId: row.request_id,
  model: row.model,
  kind: row.kind,
  quota: -BigInt(row.delta_quota),
  promptTokens: row.prompt_tokens,
  completionTokens: row.completion_tokens,
  cacheReadTokens: row.cache_read_tokens,
  cacheWriteTokens: row.cache_write_tokens,
});

const MAX_ID = 9_223_372_036_854_775_807n;

/** Rows of one account and period, newest first, from id `before` down (keyset on the index). */
function spendRows(sql: Sql, query: PageQuery, limit: number) {
  return sql<Row[]>`
    select id, created_at, request_id, model, kind, delta_quota,
           prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens
    from ledger_entries
    where user_id = ${query.userId.toString()}
      and kind in ('charge', 'refund')
      and id < ${(query.before ?? MAX_ID).toString()}
      and created_at >= to_timestamp(${query.start})
      and created_at < to_timestamp(${query.end})
    order by id desc
    limit ${limit}`;
}

/**
 * One page of the account's charges and refunds in descending id order. Keyset paging on
 * `ledger_entries_spend (user_id, id desc)`: a page costs the same at any depth, and records
 * added between pages (all with larger ids) never shift the next page.
 */
export async function spendPage(sql: Sql, query: PageQuery): Promise<Page> {
  const rows = await spendRows(sql, query, query.limit + 1);
  const records = rows.slice(0, query.limit).map(toRecord);
  const more = rows.length > query.limit;
  return { records, nextCursor: more ? records[records.length - 1]!.id : null };
}

/**
 * Every record of the period (from `before` down) in pages of `batch`, for streaming an
 * export without holding it in memory or a transaction open.
 */
export async function* spendRecords(
  sql: Sql,
  query: Omit<PageQuery, "limit">,
  batch = 1000,
): AsyncGenerator<SpendRecord[]> {
  let before = query.before;
  for (;;) {
    const page = await spendPage(sql, { ...query, before, limit: batch });
    if (page.records.length > 0) yield page.records;
    if (page.nextCursor === null) return;
    before = page.nextCursor;
  }
}
