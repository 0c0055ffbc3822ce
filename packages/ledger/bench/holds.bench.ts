/**
 * Hold admission throughput: `ledger.hold()` end to end (Lua admission, the Postgres
 * insert, the confirming Lua call) and hold + post pairs, beside the cost floor of one
 * Redis EVALSHA plus one single-row INSERT measured in the same run, on the same pools.
 *
 *   bun run packages/ledger/bench/holds.bench.ts
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
import { ledgerSum, seedKey, seedUser } from "../src/fixtures.ts";
import { createLedger } from "../src/index.ts";

const CONCURRENCY = [1, 16, 64];
const WARMUP_MS = 300;
const DURATION_MS = 1_500;
/** Per run, after warm-up: bounds the rows a fast machine writes. */
const MAX_OPS = 50_000;
const POOL_MAX = 16;

const TRIVIAL_SCRIPT = "return redis.call('HINCRBY', KEYS[1], 'n', 1)";

interface Row {
  scenario: string;
  result: LoadResult;
  /** The baseline row this one is compared with, if any. */
  base?: LoadResult;
}

async function main(): Promise<number> {
  const store = await openBenchStore({ poolMax: POOL_MAX });
  const { sql, redis, prefix } = store;
  try {
    await sql`create table bench_scratch (
      id text primary key,
      user_id bigint not null,
      amount_quota bigint not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null
    )`;
    const userId = await seedUser(sql, 10n ** 15n);
    const keyId = await seedKey(sql, userId, null);
    const ledger = createLedger({ sql, redis, prefix });
    // Posts of one account serialize on its row; many accounts show settlement at scale.
    const accounts: bigint[] = [];
    for (let i = 0; i < 64; i++) accounts.push(await seedUser(sql, 10n ** 15n));
    const scratchKey = `${prefix}:scratch`;
    const sha = String(await redis.script("LOAD", TRIVIAL_SCRIPT));

    const evalsha = async () => {
      await redis.evalsha(sha, 1, scratchKey);
    };
    const insert = async (id: string) => {
      await sql`insert into bench_scratch (id, user_id, amount_quota, expires_at)
                values (${id}, ${userId}, ${1n}, now() + ${60_000} * interval '1 millisecond')`;
    };
    const hold = async (id: string) => {
      const result = await ledger.hold({ holdId: id, userId, keyId, amountQuota: 1n });
      if (!result.ok) throw new Error(`hold refused: ${result.code}`);
      if (result.existed) throw new Error("hold id reused");
    };

    console.log(
      `holds bench: ${DURATION_MS} ms per run after ${WARMUP_MS} ms warm-up, ` +
        `at most ${MAX_OPS} measured ops per run, Postgres pool ${POOL_MAX}, concurrency ${CONCURRENCY.join("/")}`,
    );
    const rows: Row[] = [];
    let failures = 0;
    let run = 0;
    const measure = async (
      scenario: string,
      concurrency: number,
      op: (id: string) => Promise<void>,
    ) => {
      const tag = `r${run++}`;
      const result = await runLoad({
        concurrency,
        durationMs: DURATION_MS,
        warmupMs: WARMUP_MS,
        maxOps: MAX_OPS,
        op: (i) => op(`${tag}-${i}`),
      });
      failures += reportErrors(scenario, result);
      process.stdout.write(".");
      return result;
    };

    for (const concurrency of CONCURRENCY) {
      const redisOnly = await measure("redis EVALSHA", concurrency, evalsha);
      const pgOnly = await measure("pg INSERT", concurrency, insert);
      const base = await measure("baseline", concurrency, async (id) => {
        await evalsha();
        await insert(id);
      });
      const holds = await measure("ledger.hold", concurrency, hold);
      const pairs = await measure("ledger.hold+post", concurrency, async (id) => {
        await hold(id);
        const posted = await ledger.post(id, 1n);
        if (!posted.ok) throw new Error(`post refused: ${posted.code}`);
      });
      const spread = await measure("ledger.hold+post many", concurrency, async (id) => {
        const owner = accounts[Number(id.split("-")[1]) % accounts.length]!;
        const held = await ledger.hold({ holdId: id, userId: owner, keyId: null, amountQuota: 1n });
        if (!held.ok) throw new Error(`hold refused: ${held.code}`);
        const posted = await ledger.post(id, 1n);
        if (!posted.ok) throw new Error(`post refused: ${posted.code}`);
      });
      rows.push(
        { scenario: "redis EVALSHA (trivial)", result: redisOnly },
        { scenario: "pg INSERT (1 row)", result: pgOnly },
        { scenario: "baseline: EVALSHA + INSERT", result: base, base },
        { scenario: "ledger.hold", result: holds, base },
        { scenario: "ledger.hold + post (pairs)", result: pairs, base },
        { scenario: "hold + post, 64 accounts", result: spread, base },
      );
    }
    process.stdout.write("\n");

    printTable(
      "Hold admission (ops/s = holds or pairs per second; latency per operation)",
      ["scenario", "concurrency", "ops/s", "p50 ms", "p99 ms", "ops/s vs base", "p50 vs base"],
      rows.map(({ scenario, result, base }) => [
        scenario,
        String(result.concurrency),
        fmtRate(result.opsPerSecond),
        fmtMs(result.p50Ms),
        fmtMs(result.p99Ms),
        base ? fmtRatio(result.opsPerSecond, base.opsPerSecond) : "",
        base ? fmtRatio(result.p50Ms, base.p50Ms) : "",
      ]),
    );
    console.log(
      "base = one EVALSHA + one single-row INSERT, same pools and concurrency. " +
        "ledger.hold = admit Lua + INSERT + confirm Lua; + post = one statement (hold, entry, account, key) " +
        "on one account row, so its posts serialize; the many-accounts row spreads them.",
    );

    const { balance, sum } = await ledgerSum(sql, userId);
    if (balance !== sum) {
      console.error(`! ledger invariant broken: balance ${balance} != sum of entries ${sum}`);
      failures++;
    }
    if (failures > 0) {
      console.error(`holds bench: ${failures} failure(s)`);
      return 1;
    }
    return 0;
  } finally {
    await store.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error("holds bench failed:", error);
    process.exit(1);
  },
);
