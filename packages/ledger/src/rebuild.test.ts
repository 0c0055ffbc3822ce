// Proves Redis is rebuildable: after a flush the wallet, key budgets and open holds come
// back from Postgres before any hold is admitted, and the reconciler mends crash leftovers.
import { describe, expect, test } from "bun:test";
import { createTestStore, deleteKeys } from "@gw/store/testing";
import { seedKey, seedUser } from "./fixtures.ts";
import { createLedger } from "./ledger.ts";
import { walletKeys } from "./scripts.ts";

const store = await createTestStore();
const ledger = createLedger({ sql: store.sql, redis: store.redis, prefix: store.prefix });
const flush = () => deleteKeys(store.redis, `${store.prefix}:*`);

describe("rebuild and reconcile", () => {
  test("after a flush, open holds and key budgets are rebuilt before new holds are admitted", async () => {
    const userId = await seedUser(store.sql, 10_000n);
    const keyId = await seedKey(store.sql, userId, 3_000n);
    await ledger.hold({ holdId: `f1-${userId}`, userId, keyId, amountQuota: 2_000n });
    await ledger.hold({ holdId: `f2-${userId}`, userId, keyId: null, amountQuota: 5_000n });
    await ledger.hold({ holdId: `f3-${userId}`, userId, keyId, amountQuota: 500n });
    await ledger.post(`f3-${userId}`, 500n);
    await flush();

    // The key has 3,000 - 500 used - 2,000 held = 500 left; the wallet 9,500 - 7,000 = 2,500.
    const overKey = await ledger.hold({ holdId: `f4-${userId}`, userId, keyId, amountQuota: 501n });
    expect(!overKey.ok && overKey.code).toBe("key_budget_exceeded");
    const overWallet = await ledger.hold({
      holdId: `f5-${userId}`,
      userId,
      keyId: null,
      amountQuota: 2_501n,
    });
    expect(!overWallet.ok && overWallet.code).toBe("insufficient_funds");
    expect(await ledger.readWallet(userId)).toEqual({
      balanceQuota: 9_500n,
      heldQuota: 7_000n,
      availableQuota: 2_500n,
    });
    // Holds opened before the flush still settle normally.
    expect((await ledger.post(`f1-${userId}`, 1_500n)).ok).toBe(true);
    expect(await ledger.readWallet(userId)).toEqual({
      balanceQuota: 8_000n,
      heldQuota: 5_000n,
      availableQuota: 3_000n,
    });
  });

  test("a flush between a post's commit and its Redis update loses nothing", async () => {
    const userId = await seedUser(store.sql, 10_000n);
    await ledger.hold({ holdId: `g1-${userId}`, userId, keyId: null, amountQuota: 1_000n });
    await flush();
    await ledger.post(`g1-${userId}`, 1_000n);
    expect(await ledger.readWallet(userId)).toEqual({
      balanceQuota: 9_000n,
      heldQuota: 0n,
      availableQuota: 9_000n,
    });
  });

  test("the reconciler voids expired holds and mends Redis after crashes", async () => {
    const userId = await seedUser(store.sql, 10_000n);
    const [wallet, holds] = walletKeys(store.prefix, userId);
    await ledger.hold({ holdId: `e1-${userId}`, userId, keyId: null, amountQuota: 100n, ttlMs: 1 });
    // A hold posted in Postgres whose Redis update never happened (the process died).
    await ledger.hold({ holdId: `e2-${userId}`, userId, keyId: null, amountQuota: 200n });
    const entry = await store.redis.hget(holds, `e2-${userId}`);
    await ledger.post(`e2-${userId}`, 200n);
    await store.redis.hset(holds, `e2-${userId}`, entry!);
    await store.redis.hincrby(wallet, "held", 200);
    await store.redis.hincrby(wallet, "balance", 200);
    // A reservation whose Postgres insert never happened, two minutes old.
    await store.redis.hset(holds, "orphan", `300|0|${Date.now() - 120_000}`);
    await store.redis.hincrby(wallet, "held", 300);
    await Bun.sleep(5);

    const report = await ledger.reconcile();
    expect(report).toEqual({ expiredVoided: 1, releasedInRedis: 1, orphansDropped: 1 });
    expect((await ledger.findHold(`e1-${userId}`))!.state).toBe("voided");
    // Posting removed 200 from a balance the injected crash had left 200 too high.
    expect(await ledger.readWallet(userId)).toEqual({
      balanceQuota: 9_800n,
      heldQuota: 0n,
      availableQuota: 9_800n,
    });
    expect(await ledger.reconcile()).toEqual({
      expiredVoided: 0,
      releasedInRedis: 0,
      orphansDropped: 0,
    });
  });
});
