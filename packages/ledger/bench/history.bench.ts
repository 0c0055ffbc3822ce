/**
 * Spend history reads over one account with 1,000,000 records (spec 4.10): a history page
 * at the top and deep in the account (keyset), the 30-day and 1-day summaries, beside a
 * bare indexed SELECT of the same page size measured in the same run, on the same pool.
 *
 *   bun run packages/ledger/bench/history.bench.ts
 */
import {
  fmtMs,
  fmtRate,
  fmtRatio,
  type LoadResult,
  openBenchStore,
  printTable,
  reportErrors,
  runLoad,
} from "@gw/benchkit";
import { seedKey, seedUser } from "../src/fixtures.ts";
import { rollSpendDays, spendPage, spendSummary } from "../src/index.ts";

const RECORDS = Number(process.env.HISTORY_BENCH_RECORDS ?? 1_000_000);
/** Records of other accounts around the measured one, so it is not alone in the table. */
const OTHERS = Math.floor(RECORDS / 5);
const CONCURRENCY = [1, 8];
const WARMUP_MS = 300;
const DURATION_MS = 2_000;
const PAGE = 50;
const DAY = 86_400;

async function main(): Promise<number> {
  const store = await openBenchStore({ poolMax: 8 });
  const { sql } = store;
  try {
    const userId = await seedUser(sql, 10n ** 15n);
    const keyId = await seedKey(sql, userId, null);
    const other = await seedUser(sql, 10n ** 15n);
    const now = Math.floor(Date.now() / 1000);
    const seeded = performance.now();
    // Records spread evenly over the last 29 days, one in twenty a refund, four models; one
    // record in six belongs to another account, interleaved in time as accounts write.
    const total = RECORDS + OTHERS;
    await sql`
      insert into ledger_entries (user_id, key_id, kind, delta_quota, business_key, request_id,
                                  model, prompt_tokens, completion_tokens, created_at)
      select case when g % 6 = 0 then ${other.toString()}::bigint else ${userId.toString()}::bigint end,
             case when g % 6 = 0 then null else ${keyId.toString()}::bigint end,
             case when g % 20 = 1 and g % 6 <> 0 then 'refund' else 'charge' end,
             case when g % 20 = 1 and g % 6 <> 0 then 500 else -21000 end,
             'bench:' || g, 'req_' || g,
             (array['gpt-image-1','lumina-image','sonora/speech','lumen-chat'])[1 + g % 4],
             g % 100, g % 10,
             to_timestamp(${now}::float8 - ${29 * DAY}::float8 + g * (${29 * DAY}::float8 / ${total}::float8))
      from generate_series(1, ${total}::int) g`;
    await sql`vacuum analyze ledger_entries`.simple();
    const [range] = await sql<{ min: string; max: string }[]>`
      select min(id)::text as min, max(id)::text as max from ledger_entries where user_id = ${userId.toString()}`;
    const lowest = BigInt(range!.min);
    const highest = BigInt(range!.max);
    console.log(
      `history bench: ${RECORDS.toLocaleString("en-US")} records of one account (+${OTHERS.toLocaleString("en-US")} of another) seeded in ${((performance.now() - seeded) / 1000).toFixed(1)} s; ` +
        `${DURATION_MS} ms per run after ${WARMUP_MS} ms warm-up`,
    );

    const period = { start: now - 30 * DAY, end: now + 1 };
    /** A cursor somewhere in the oldest tenth: pages at "record 900,000" and beyond. */
    const deepCursor = (i: number) => lowest + 100n + BigInt(i % Math.floor(RECORDS / 10));
    const scenarios: [string, (i: number) => Promise<unknown>][] = [
      [
        "bare indexed SELECT (baseline)",
        (i) => sql`select id, created_at, delta_quota, model from ledger_entries
                   where user_id = ${userId.toString()} and id < ${(highest - BigInt(i % 1000)).toString()}
                   order by id desc limit ${PAGE}`,
      ],
      ["history page, newest", () => spendPage(sql, { userId, limit: PAGE, ...period })],
      [
        "history page, deep (keyset)",
        (i) => spendPage(sql, { userId, limit: PAGE, before: deepCursor(i), ...period }),
      ],
      ["summary, 1 day", () => spendSummary(sql, userId, { start: now - DAY, end: now + 1 })],
      ["summary, 30 days, from records", () => spendSummary(sql, userId, period)],
    ];
    const rows: { scenario: string; result: LoadResult; base: LoadResult }[] = [];
    let failures = 0;
    for (const concurrency of CONCURRENCY) {
      let base: LoadResult | null = null;
      for (const [scenario, op] of scenarios) {
        const result = await runLoad({
          concurrency,
          durationMs: DURATION_MS,
          warmupMs: WARMUP_MS,
          maxOps: 200_000,
          op: async (i) => {
            await op(i);
          },
        });
        failures += reportErrors(scenario, result);
        base ??= result;
        rows.push({ scenario, result, base });
        process.stdout.write(".");
      }
    }
    // The worker's maintenance sums closed days into spend_daily; then a long summary reads
    // those rows plus the partial days at its edges.
    const rolling = performance.now();
    const days = await rollSpendDays(sql);
    const rolledIn = ((performance.now() - rolling) / 1000).toFixed(1);
    let rolledBase: LoadResult | null = null;
    for (const [scenario, op] of [
      ["bare indexed SELECT (baseline)", scenarios[0]![1]],
      ["summary, 30 days, days rolled up", () => spendSummary(sql, userId, period)],
    ] as const) {
      const result = await runLoad({
        concurrency: 1,
        durationMs: DURATION_MS,
        warmupMs: WARMUP_MS,
        maxOps: 200_000,
        op: async (i) => {
          await op(i);
        },
      });
      failures += reportErrors(scenario, result);
      rolledBase ??= result;
      if (scenario !== "bare indexed SELECT (baseline)")
        rows.push({ scenario, result, base: rolledBase });
      process.stdout.write(".");
    }
    process.stdout.write("\n");
    console.log(`${days} closed days summed into spend_daily in ${rolledIn} s`);
    const check = await spendSummary(sql, userId, period);
    const [counted] = await sql<{ charges: string }[]>`
      select count(*)::text as charges from ledger_entries
      where user_id = ${userId.toString()}::bigint and kind = 'charge'`;
    if (check.requests !== Number(counted!.charges)) {
      console.error(`! summary counted ${check.requests} charges`);
      failures++;
    }
    printTable(
      `Spend history over ${RECORDS.toLocaleString("en-US")} records (latency per call)`,
      ["scenario", "concurrency", "calls/s", "p50 ms", "p99 ms", "p50 vs base", "p99 vs base"],
      rows.map(({ scenario, result, base }) => [
        scenario,
        String(result.concurrency),
        fmtRate(result.opsPerSecond),
        fmtMs(result.p50Ms),
        fmtMs(result.p99Ms),
        fmtRatio(result.p50Ms, base.p50Ms),
        fmtRatio(result.p99Ms, base.p99Ms),
      ]),
    );
    console.log(
      "base = one indexed SELECT of 50 rows by (user_id, id desc). A page is keyset on " +
        "ledger_entries_spend, so the deep page costs what the newest does; a summary sums " +
        "its period from the covering index ledger_entries_spend_period (index-only scan), " +
        "or, once the worker rolled closed days into spend_daily, whole days from there and " +
        "only the partial days at the edges from the records.",
    );
    return failures > 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error("history bench failed:", error);
    process.exit(1);
  },
);
