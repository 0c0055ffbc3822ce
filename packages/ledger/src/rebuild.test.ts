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
    const version = await store.redis.hget(wallet, "ver");
    await ledger.post(`e2-${userId}`, 200n);
    await store.redis.hset(holds, `e2-${userId}`, entry!);
    await store.redis.hset(wallet, "ver", version!);
    await store.redis.hincrby(wallet, "held", 200);
    await store.redis.hincrby(wallet, "balance", 200);
    // A reservation whose Postgres insert never happened, two minutes old.
    await store.redis.hset(holds, "orphan", `300|0|${Date.now() - 120_000}`);
    await store.redis.hincrby(wallet, "held", 300);
    await Bun.sleep(5);

    const report = await ledger.reconcile();
    expect(report).toEqual({
      expiredVoided: 1,
      releasedInRedis: 1,
      orphansDropped: 1,
      walletsReloaded: 0,
    });
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
      walletsReloaded: 0,
    });
  });

  test("a wallet that lost a change (its process died before Redis) is reloaded once it stays behind", async () => {
    const userId = await seedUser(store.sql, 10_000n);
    const [wallet] = walletKeys(store.prefix, userId);
    await ledger.readWallet(userId);
    // A credit committed in Postgres whose Redis update never ran.
    await store.sql`update users set balance_quota = balance_quota + 500,
                      wallet_version = wallet_version + 1 where id = ${userId}`;
    await store.sql`insert into ledger_entries (user_id, kind, delta_quota, business_key)
                    values (${userId}, 'credit', 500, ${`lost-${userId}`})`;
    const now = Date.now();
    const first = await ledger.reconcile(now);
    expect(first.walletsReloaded).toBe(0); // behind once: its update may be on its way
    expect((await ledger.reconcile(now + 4_000)).walletsReloaded).toBe(0);
    expect((await ledger.readWallet(userId))?.balanceQuota).toBe(10_000n);
    const second = await ledger.reconcile(now + 5_000);
    expect(second.walletsReloaded).toBe(1);
    expect(await store.redis.exists(wallet)).toBe(0);
    expect((await ledger.readWallet(userId))?.balanceQuota).toBe(10_500n);
    expect((await ledger.reconcile()).walletsReloaded).toBe(0);
  });

  test("changes arriving out of order are each taken once; a repeat changes nothing", async () => {
    const userId = await seedUser(store.sql, 10_000n);
    const keyId = await seedKey(store.sql, userId, 5_000n);
    const holds = ["o1", "o2", "o3"].map((id) => ({
      holdId: `${id}-${userId}`,
      userId,
      keyId,
      amountQuota: 1_000n,
    }));
    for (const input of holds) expect((await ledger.hold(input)).ok).toBe(true);
    // Three posts commit; their Redis updates then arrive last first, and the first twice.
    const staged = [];
    for (const input of holds)
      staged.push(
        await store.sql.begin((tx) => ledger.postWithin(tx as never, input.holdId, 400n)),
      );
    for (const stage of [...staged].reverse()) await stage.afterCommit();
    await staged[0]!.afterCommit();
    await ledger.post(holds[1]!.holdId, 400n); // a retried post: `existed`, repeated in Redis
    expect(await ledger.readWallet(userId)).toEqual({
      balanceQuota: 8_800n,
      heldQuota: 0n,
      availableQuota: 8_800n,
    });
    const [wallet] = walletKeys(store.prefix, userId);
    expect(await store.redis.hget(wallet, `k:${keyId}:used`)).toBe("1200");
  });

  test("a batch's posts whose Redis update was lost are mended one hold at a time, each charged", async () => {
    const userId = await seedUser(store.sql, 10_000n);
    const keyId = await seedKey(store.sql, userId, null);
    const inputs = ["b1", "b2", "b3"].map((id) => ({
      holdId: `${id}-${userId}`,
      userId,
      keyId,
      amountQuota: 1_000n,
    }));
    for (const input of inputs) expect((await ledger.hold(input)).ok).toBe(true);
    // One batch posts all three; its process dies before Redis hears of it.
    await store.sql.begin((tx) =>
      ledger.postMany(
        tx as never,
        inputs.map((input, at) => ({
          holdId: input.holdId,
          userId,
          amountQuota: 100n * BigInt(at + 1),
        })),
      ),
    );
    // A retry of the second alone repeats its post in Redis; the reconciler mends the rest.
    const again = await store.sql.begin((tx) =>
      ledger.postMany(tx as never, [{ holdId: inputs[1]!.holdId, userId, amountQuota: 200n }]),
    );
    expect(again.result[0]).toMatchObject({ ok: true, existed: true });
    await again.afterCommit();
    await ledger.reconcile();
    expect(await ledger.readWallet(userId)).toEqual({
      balanceQuota: 9_400n,
      heldQuota: 0n,
      availableQuota: 9_400n,
    });
    const [wallet] = walletKeys(store.prefix, userId);
    expect(await store.redis.hget(wallet, `k:${keyId}:used`)).toBe("600");
  });
});
