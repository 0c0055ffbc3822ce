/**
 * Batch sizes of the durable writes, read back from the bench schema. Postgres's `now()`
 * is the start of the transaction, so every task inserted by one group-commit
 * submission shares its `created_at`, and every task settled by one settlement batch
 * shares its `finished_at`: counting tasks per timestamp gives tasks per transaction.
 */
import { percentile } from "@gw/benchkit";
import type { Sql } from "@gw/store";
import type { Window } from "./images-ledger.ts";

export interface BatchSizes {
  /** Transactions seen in the window. */
  batches: number;
  /** Tasks per transaction, ascending. */
  sizes: number[];
}

async function sizesBy(
  sql: Sql,
  column: "created_at" | "finished_at",
  window: Window,
): Promise<BatchSizes> {
  const from = new Date(window.fromMs);
  const to = new Date(window.toMs);
  const rows = await sql<{ size: number }[]>`
    select count(*)::int as size from tasks
    where ${sql(column)} >= ${from} and ${sql(column)} < ${to}
    group by ${sql(column)} order by 1`;
  return { batches: rows.length, sizes: rows.map((row) => row.size) };
}

/** Tasks per submission transaction and per settlement transaction in the window. */
export async function batchSizesIn(
  sql: Sql,
  window: Window,
): Promise<{ submit: BatchSizes; settle: BatchSizes }> {
  const [submit, settle] = await Promise.all([
    sizesBy(sql, "created_at", window),
    sizesBy(sql, "finished_at", window),
  ]);
  return { submit, settle };
}

/** `batches, mean, p50, p90, max, share of tasks in batches of >= 8` for a table row. */
export function describeSizes({ batches, sizes }: BatchSizes): string[] {
  if (batches === 0) return ["0", "-", "-", "-", "-", "-"];
  const tasks = sizes.reduce((sum, size) => sum + size, 0);
  const inLarge = sizes.filter((size) => size >= 8).reduce((sum, size) => sum + size, 0);
  return [
    String(batches),
    (tasks / batches).toFixed(1),
    String(percentile(sizes, 50)),
    String(percentile(sizes, 90)),
    String(sizes[sizes.length - 1]),
    `${Math.round((inLarge / tasks) * 100)}%`,
  ];
}
