import type { Sql } from "@gw/store";

/** Holds placed and not yet posted or voided: money reserved for tasks in flight. */
export async function countOpenHolds(sql: Sql): Promise<number> {
  const [row] = await sql<{ count: number }[]>`
    select count(*)::int as count from holds where state = 'pending'`;
  return row?.count ?? 0;
}
