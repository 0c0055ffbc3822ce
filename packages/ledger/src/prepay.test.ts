// Proves the reserve -> charge -> refund mode (spec 2.6.2): the reserve is charged at
// submission and shows in history, the unused part comes back once however many callers
// race to refund it, a failed generation refunds everything, an actual price above the
// reserve is capped at it, and a refused reserve writes nothing. Every wallet (Postgres
// and Redis) equals its ledger.
import { describe, expect, test } from "bun:test";
import type { Sql } from "@gw/store";
import { createTestStore } from "@gw/store/testing";
import { ledgerSum, seedKey, seedUser } from "./fixtures.ts";
import { createLedger } from "./ledger.ts";

const store = await createTestStore({ poolMax: 30 });
const { sql } = store;
const ledger = createLedger({ sql, redis: store.redis, prefix: store.prefix });
const begin = <T>(run: (tx: Sql) => Promise<T>) =>
  sql.begin((tx) => run(tx as unknown as Sql)) as Promise<T>;

async function charge(userId: bigint, keyId: bigint | null, holdId: string, amount: bigint) {
  const prepaid = await ledger.prepay({ holdId, userId, keyId, amountQuota: amount });
  if (!prepaid.ok) return prepaid;
  await begin((tx) => prepaid.chargeWithin(tx));
  return prepaid.afterCommit();
}

async function history(userId: bigint) {
  return sql<{ kind: string; delta_quota: bigint; business_key: string }[]>`
    select kind, delta_quota, business_key from ledger_entries
    where user_id = ${userId} and kind <> 'credit' order by id`;
}

async function consistent(userId: bigint): Promise<bigint> {
  const { balance, sum } = await ledgerSum(sql, userId);
  expect(balance).toBe(sum);
  const wallet = await ledger.readWallet(userId);
  expect(wallet?.balanceQuota).toBe(balance);
  expect(wallet?.heldQuota).toBe(0n);
  return balance;
}

describe("reserve -> charge -> refund", () => {
  test("the reserve is charged at submission; the unused part is refunded once", async () => {
    const userId = await seedUser(sql, 10_000n);
    const keyId = await seedKey(sql, userId, 5_000n);
    expect(await charge(userId, keyId, "aud-1", 3_000n)).toEqual({ ok: true });
    expect(await consistent(userId)).toBe(7_000n);
    expect([...(await history(userId))]).toEqual([
      { kind: "charge", delta_quota: -3_000n, business_key: "aud-1:charge" },
    ]);
    const staged = await begin((tx) => ledger.refundWithin(tx, "aud-1", 1_200n));
    await staged.afterCommit();
    expect(staged.result).toEqual({
      ok: true,
      existed: false,
      refundedQuota: 1_800n,
      capped: false,
    });
    expect(await consistent(userId)).toBe(8_800n);
    const [key] = await sql<
      { used_quota: bigint }[]
    >`select used_quota from api_keys where id = ${keyId}`;
    expect(key!.used_quota).toBe(1_200n);
    expect((await history(userId)).map((entry) => entry.business_key)).toEqual([
      "aud-1:charge",
      "aud-1:refund",
    ]);
  });

  test("20 overlapping refunds of one task (polls, sweeps, workers) refund once", async () => {
    const userId = await seedUser(sql, 10_000n);
    await charge(userId, null, "aud-2", 4_000n);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        begin(async (tx) => {
          const staged = await ledger.refundWithin(tx, "aud-2", 1_000n);
          return staged;
        }),
      ),
    );
    for (const staged of results) await staged.afterCommit();
    const fresh = results.filter((staged) => staged.result.ok && !staged.result.existed);
    expect(fresh).toHaveLength(1);
    expect(await consistent(userId)).toBe(10_000n - 1_000n);
    expect((await history(userId)).filter((entry) => entry.kind === "refund")).toHaveLength(1);
  });

  test("a failed generation refunds everything; a price above the reserve stays capped", async () => {
    const userId = await seedUser(sql, 10_000n);
    await charge(userId, null, "aud-3", 2_000n);
    await charge(userId, null, "aud-4", 2_000n);
    const failed = await begin((tx) => ledger.refundWithin(tx, "aud-3", 0n));
    await failed.afterCommit();
    expect(failed.result).toMatchObject({ ok: true, refundedQuota: 2_000n });
    const over = await begin((tx) => ledger.refundWithin(tx, "aud-4", 2_600n));
    await over.afterCommit();
    expect(over.result).toEqual({ ok: true, existed: false, refundedQuota: 0n, capped: true });
    expect(await consistent(userId)).toBe(8_000n);
    expect((await history(userId)).filter((entry) => entry.kind === "refund")).toHaveLength(1);
  });

  test("a reserve the wallet cannot cover is refused and writes nothing", async () => {
    const userId = await seedUser(sql, 1_000n);
    expect(await charge(userId, null, "aud-5", 5_000n)).toMatchObject({
      ok: false,
      code: "insufficient_funds",
    });
    expect([...(await history(userId))]).toEqual([]);
    const [hold] = await sql`select id from holds where id = 'aud-5'`;
    expect(hold).toBeUndefined();
    expect(await consistent(userId)).toBe(1_000n);
  });

  test("a refund of a task never charged is refused", async () => {
    const staged = await begin((tx) => ledger.refundWithin(tx, "no-such-task", 0n));
    expect(staged.result).toEqual({ ok: false, code: "hold_not_found" });
  });
});
