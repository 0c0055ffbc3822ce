// Proves holds are admitted atomically against wallet and key budget, never over-commit
// under thousands of concurrent attempts, and leave nothing behind when refused or failed.
import { describe, expect, test } from "bun:test";
import { createTestStore } from "@gw/store/testing";
import { ledgerSum, seedKey, seedUser } from "./fixtures.ts";
import { createLedger } from "./ledger.ts";

const store = await createTestStore({ poolMax: 20 });
const ledger = createLedger({ sql: store.sql, redis: store.redis, prefix: store.prefix });

async function pendingSum(userId: bigint): Promise<bigint> {
  const [row] = await store.sql<{ sum: bigint }[]>`
    select coalesce(sum(amount_quota), 0)::bigint as sum from holds
    where user_id = ${userId} and state = 'pending'`;
  return row!.sum;
}

describe("hold admission", () => {
  test("10,000 concurrent holds on one wallet admit exactly what fits, not one unit more", async () => {
    const userId = await seedUser(store.sql, 500_000n);
    const attempts = Array.from({ length: 10_000 }, (_, i) =>
      ledger.hold({ holdId: `c-${userId}-${i}`, userId, keyId: null, amountQuota: 77n }),
    );
    const results = await Promise.all(attempts);
    const admitted = results.filter((r) => r.ok).length;
    const refused = results.filter((r) => !r.ok && r.code === "insufficient_funds").length;
    expect(admitted).toBe(Math.floor(500_000 / 77));
    expect(admitted + refused).toBe(10_000);
    const wallet = await ledger.readWallet(userId);
    expect(wallet!.heldQuota).toBe(BigInt(admitted) * 77n);
    expect(wallet!.availableQuota).toBe(500_000n - BigInt(admitted) * 77n);
    expect(await pendingSum(userId)).toBe(BigInt(admitted) * 77n);
  }, 60_000);

  test("concurrent holds through one key never pass its budget, and the wallet still bounds them", async () => {
    const userId = await seedUser(store.sql, 1_000_000n);
    const keyId = await seedKey(store.sql, userId, 10_000n);
    const otherKey = await seedKey(store.sql, userId, null);
    const results = await Promise.all([
      ...Array.from({ length: 500 }, (_, i) =>
        ledger.hold({ holdId: `k-${keyId}-${i}`, userId, keyId, amountQuota: 30n }),
      ),
      ...Array.from({ length: 500 }, (_, i) =>
        ledger.hold({ holdId: `o-${otherKey}-${i}`, userId, keyId: otherKey, amountQuota: 3_000n }),
      ),
    ]);
    const byKey = results.slice(0, 500).filter((r) => r.ok).length;
    const byOther = results.slice(500).filter((r) => r.ok).length;
    expect(byKey).toBe(Math.floor(10_000 / 30));
    // The wallet is shared: what the limited key holds leaves less for the unlimited one.
    expect(byOther).toBe(Math.floor((1_000_000 - byKey * 30) / 3_000));
    const refusals = results.slice(0, 500).filter((r) => !r.ok);
    expect(refusals.every((r) => !r.ok && r.code === "key_budget_exceeded")).toBe(true);
  }, 30_000);

  test("a refused hold changes nothing and reports what is available", async () => {
    const userId = await seedUser(store.sql, 1_000n);
    const result = await ledger.hold({
      holdId: `r-${userId}`,
      userId,
      keyId: null,
      amountQuota: 1_001n,
    });
    expect(result).toEqual({ ok: false, code: "insufficient_funds", availableQuota: 1_000n });
    expect(await pendingSum(userId)).toBe(0n);
    expect((await ledger.readWallet(userId))!.heldQuota).toBe(0n);
  });

  test("a repeated hold id answers the existing hold and reserves nothing more", async () => {
    const userId = await seedUser(store.sql, 10_000n);
    const first = await ledger.hold({
      holdId: `rep-${userId}`,
      userId,
      keyId: null,
      amountQuota: 400n,
    });
    const again = await ledger.hold({
      holdId: `rep-${userId}`,
      userId,
      keyId: null,
      amountQuota: 400n,
    });
    expect(first.ok && !first.existed).toBe(true);
    expect(again.ok && again.existed).toBe(true);
    const other = await ledger.hold({
      holdId: `rep-${userId}`,
      userId,
      keyId: null,
      amountQuota: 999n,
    });
    expect(other).toEqual({ ok: false, code: "hold_conflict" });
    expect((await ledger.readWallet(userId))!.heldQuota).toBe(400n);
  });

  test("reusing the id of a settled hold reserves nothing", async () => {
    const userId = await seedUser(store.sql, 10_000n);
    await ledger.hold({ holdId: `done-${userId}`, userId, keyId: null, amountQuota: 500n });
    await ledger.post(`done-${userId}`, 500n);
    const again = await ledger.hold({
      holdId: `done-${userId}`,
      userId,
      keyId: null,
      amountQuota: 500n,
    });
    expect(again.ok && again.existed && again.hold.state === "posted").toBe(true);
    const wallet = await ledger.readWallet(userId);
    expect(wallet).toEqual({ balanceQuota: 9_500n, heldQuota: 0n, availableQuota: 9_500n });
  });

  test("a Postgres failure after admission releases the Redis reservation", async () => {
    const userId = await seedUser(store.sql, 10_000n);
    const tooLongId = "x".repeat(300); // violates the holds.id length check
    await expect(
      ledger.hold({ holdId: tooLongId, userId, keyId: null, amountQuota: 100n }),
    ).rejects.toThrow();
    expect((await ledger.readWallet(userId))!.heldQuota).toBe(0n);
  });

  test("unknown owners and keys are refused as values", async () => {
    expect(
      await ledger.hold({ holdId: "u-none", userId: 999_999n, keyId: null, amountQuota: 1n }),
    ).toEqual({
      ok: false,
      code: "user_not_found",
    });
    const userId = await seedUser(store.sql, 100n);
    expect(
      await ledger.hold({ holdId: `kn-${userId}`, userId, keyId: 999_999n, amountQuota: 1n }),
    ).toEqual({
      ok: false,
      code: "key_not_found",
    });
    expect(await ledgerSum(store.sql, userId)).toEqual({ balance: 100n, sum: 100n });
  });
});
