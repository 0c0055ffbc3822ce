// Proves the daily spend rollup: a summary that reads whole days from spend_daily and the
// edges from the records equals a sum of the records themselves, for periods that start
// and end mid-day, cover unrolled days, or fall inside one day; each day is rolled once.
import { expect, test } from "bun:test";
import { createTestStore } from "@gw/store/testing";
import { seedUser } from "../fixtures.ts";
import { rolledThrough, rollSpendDays } from "./rollup.ts";
import { spendSummary } from "./summary.ts";

const store = await createTestStore();
const { sql } = store;
const DAY = 86_400;
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const now = NOW / 1000;

/** What a summary must say: the records of [start, end) summed directly. */
async function direct(userId: bigint, start: number, end: number) {
  const rows = await sql<{ model: string | null; requests: string; net: string; pt: string }[]>`
    select model, count(*) filter (where kind = 'charge')::text as requests,
           sum(-delta_quota)::text as net, sum(prompt_tokens)::text as pt
    from ledger_entries where user_id = ${userId.toString()} and kind in ('charge', 'refund')
      and created_at >= to_timestamp(${start}) and created_at < to_timestamp(${end})
    group by model order by model nulls last`;
  return rows.map((row) => ({
    model: row.model,
    requests: Number(row.requests),
    netQuota: BigInt(row.net),
    promptTokens: Number(row.pt),
  }));
}

test("summaries over rolled days equal the records, edges and unrolled days included", async () => {
  const userId = await seedUser(sql, 10n ** 12n);
  const other = await seedUser(sql, 10n ** 12n);
  // Ten days of records every 37 minutes, three models and some without a model, one in
  // seven a refund, and another account's records between them.
  await sql`
    insert into ledger_entries (user_id, kind, delta_quota, business_key, model, prompt_tokens, created_at)
    select case when g % 5 = 0 then ${other.toString()}::bigint else ${userId.toString()}::bigint end,
           case when g % 7 = 0 then 'refund' else 'charge' end,
           case when g % 7 = 0 then 300 else -1000 - g end,
           'r:' || g,
           (array['a', 'b', null, 'c'])[1 + g % 4],
           g % 13,
           to_timestamp(${now - 10 * DAY}::float8 + g * 2220)
    from generate_series(1, 389) g`;
  expect(await rolledThrough(sql)).toBeNull();
  const rolled = await rollSpendDays(sql, NOW);
  // Closed days: from the first record's day through the day before yesterday's grace.
  expect(rolled).toBeGreaterThanOrEqual(9);
  expect(await rollSpendDays(sql, NOW)).toBe(0);
  expect(await rolledThrough(sql)).toBe(Math.floor(now / DAY) * DAY - DAY);
  const periods: [number, number][] = [
    [now - 10 * DAY, now + 1],
    [now - 9.5 * DAY, now - 2.25 * DAY],
    [now - 8 * DAY + 17, now - 3 * DAY - 17],
    [Math.floor(now / DAY) * DAY - 3 * DAY, Math.floor(now / DAY) * DAY],
    [now - 4.2 * DAY, now - 4.1 * DAY],
    [now - 1.5 * DAY, now],
  ];
  for (const [start, end] of periods) {
    const summary = await spendSummary(sql, userId, { start, end });
    const expected = await direct(userId, start, end);
    expect({
      start,
      models: summary.byModel.map(({ model, requests, netQuota, promptTokens }) => ({
        model,
        requests,
        netQuota,
        promptTokens,
      })),
    }).toEqual({ start, models: expected });
    expect(summary.netQuota).toBe(expected.reduce((sum, row) => sum + row.netQuota, 0n));
  }
});
