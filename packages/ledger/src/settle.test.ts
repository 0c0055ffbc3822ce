// Proves posts charge once (even when retried concurrently), may charge less than held,
// voids release without a record, and the wallet always equals its ledger.
import { describe, expect, test } from "bun:test";
import { createTestStore } from "@gw/store/testing";
import { ledgerSum, seedKey, seedUser } from "./fixtures.ts";
import { createLedger } from "./ledger.ts";

const store = await createTestStore();
const ledger = createLedger({ sql: store.sql, redis: store.redis, prefix: store.prefix });

async function userRow(userId: bigint) {
  const [row] = await store.sql<{ balance_quota: bigint; spent_quota: bigint }[]>`
    select balance_quota, spent_quota from users where id = ${userId}`;
  return row!;
}

async function keyUsed(keyId: bigint): Promise<bigint> {
  const [row] = await store.sql<
    { used_quota: bigint }[]
  >`select used_quota from api_keys where id = ${keyId}`;
  return row!.used_quota;
}

async function entries(userId: bigint) {
  return [
    ...(await store.sql<{ kind: string; delta_quota: bigint; business_key: string }[]>`
    select kind, delta_quota, business_key from ledger_entries
    where user_id = ${userId} and kind <> 'credit' order by id`),
  ];
}

describe("post and void", () => {
  test("posting for less than held charges the posted amount and releases the rest", async () => {
    const userId = await seedUser(store.sql, 10_000n);
    const keyId = await seedKey(store.sql, userId, 5_000n);
    await ledger.hold({ holdId: `p-${userId}`, userId, keyId, amountQuota: 1_000n });
    const posted = await ledger.post(`p-${userId}`, 600n, { model: "m", requestId: "req-1" });
    expect(posted.ok && !posted.existed && posted.postedQuota === 600n).toBe(true);
    expect(await userRow(userId)).toEqual({ balance_quota: 9_400n, spent_quota: 600n });
    expect(await keyUsed(keyId)).toBe(600n);
    expect(await entries(userId)).toEqual([
      { kind: "charge", delta_quota: -600n, business_key: `p-${userId}:charge` },
    ]);
    expect(await ledger.readWallet(userId)).toEqual({
      balanceQuota: 9_400n,
      heldQuota: 0n,
      availableQuota: 9_400n,
    });
    // The key budget in Redis moved too: 5,000 - 600 used leaves room for 4,400, not more.
    const tooMuch = await ledger.hold({
      holdId: `p2-${userId}`,
      userId,
      keyId,
      amountQuota: 4_401n,
    });
    expect(!tooMuch.ok && tooMuch.code).toBe("key_budget_exceeded");
    expect(await ledgerSum(store.sql, userId)).toEqual({ balance: 9_400n, sum: 9_400n });
  });

  test("twenty concurrent posts of one hold charge exactly once", async () => {
    const userId = await seedUser(store.sql, 10_000n);
    await ledger.hold({ holdId: `i-${userId}`, userId, keyId: null, amountQuota: 700n });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => ledger.post(`i-${userId}`, 700n)),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    expect(results.filter((r) => r.ok && !r.existed)).toHaveLength(1);
    expect(await entries(userId)).toHaveLength(1);
    expect(await userRow(userId)).toEqual({ balance_quota: 9_300n, spent_quota: 700n });
    expect((await ledger.readWallet(userId))!.balanceQuota).toBe(9_300n);
  });

  test("a void releases the hold with no charge and no refund record", async () => {
    const userId = await seedUser(store.sql, 10_000n);
    await ledger.hold({ holdId: `v-${userId}`, userId, keyId: null, amountQuota: 2_000n });
    expect((await ledger.readWallet(userId))!.availableQuota).toBe(8_000n);
    expect(await ledger.void(`v-${userId}`)).toEqual({ ok: true, existed: false });
    expect(await ledger.void(`v-${userId}`)).toEqual({ ok: true, existed: true });
    expect(await entries(userId)).toEqual([]);
    expect(await userRow(userId)).toEqual({ balance_quota: 10_000n, spent_quota: 0n });
    expect((await ledger.readWallet(userId))!.availableQuota).toBe(10_000n);
  });

  test("a hold is settled one way only, never for more than held", async () => {
    const userId = await seedUser(store.sql, 10_000n);
    await ledger.hold({ holdId: `a-${userId}`, userId, keyId: null, amountQuota: 100n });
    expect(await ledger.post(`a-${userId}`, 101n)).toEqual({ ok: false, code: "exceeds_hold" });
    await ledger.void(`a-${userId}`);
    expect(await ledger.post(`a-${userId}`, 50n)).toEqual({ ok: false, code: "hold_voided" });
    await ledger.hold({ holdId: `b-${userId}`, userId, keyId: null, amountQuota: 100n });
    await ledger.post(`b-${userId}`, 100n);
    expect(await ledger.void(`b-${userId}`)).toEqual({ ok: false, code: "hold_posted" });
    // A second post of a posted hold, for another amount, answers the first and charges nothing.
    const again = await ledger.post(`b-${userId}`, 40n);
    expect(again.ok && again.existed && again.postedQuota).toBe(100n);
    expect(await ledger.post("missing", 1n)).toEqual({ ok: false, code: "hold_not_found" });
    expect(await ledgerSum(store.sql, userId)).toEqual({ balance: 9_900n, sum: 9_900n });
  });

  test("a credit lands once per business key and raises available funds at once", async () => {
    const userId = await seedUser(store.sql, 0n);
    await ledger.readWallet(userId);
    const first = await ledger.credit({
      userId,
      amountQuota: 5_000n,
      businessKey: `top-${userId}`,
    });
    const again = await ledger.credit({
      userId,
      amountQuota: 5_000n,
      businessKey: `top-${userId}`,
    });
    expect(first.ok && !first.existed).toBe(true);
    expect(again.ok && again.existed).toBe(true);
    expect((await ledger.readWallet(userId))!.availableQuota).toBe(5_000n);
    expect(await ledgerSum(store.sql, userId)).toEqual({ balance: 5_000n, sum: 5_000n });
    expect(await ledger.credit({ userId: 999_999n, amountQuota: 1n })).toEqual({
      ok: false,
      code: "user_not_found",
    });
  });
});
