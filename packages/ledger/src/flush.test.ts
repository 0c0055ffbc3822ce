// Proves a wallet never admits past its balance, nor a key past its budget, however
// often Redis loses its state while holds are being admitted and posted: a hold that a
// rebuilt wallet missed or loaded unchecked is checked again when it is confirmed, so a
// flush may refuse a hold but never over-commit by one unit.
import { describe, expect, test } from "bun:test";
import { Random } from "@gw/random";
import { createTestStore } from "@gw/store/testing";
import { ledgerSum, seedKey, seedUser } from "./fixtures.ts";
import { createLedger } from "./ledger.ts";
import { loadingKey, walletKeys } from "./scripts.ts";

const store = await createTestStore({ poolMax: 20 });
const ledger = createLedger({ sql: store.sql, redis: store.redis, prefix: store.prefix });

/** The draws of a seeded source, so a failing seed can be run again. */
function random(seed: number): () => number {
  const source = new Random(seed);
  return () => source.next();
}

interface Totals {
  admitted: number;
  balance: bigint;
  keyUsed: bigint;
  pendingQuota: bigint;
}

/**
 * One run: `requests` holds of `price` started `gapMs` apart on a wallet funded for
 * `fits` of them, half of them posted once admitted, while the wallet's Redis state is
 * deleted (a flush, as far as this wallet can tell) every 5-25 ms.
 */
async function floodWhileFlushing(seed: number, keyBudget: bigint | null): Promise<Totals> {
  const next = random(seed);
  const price = 5_500n;
  const fits = 50n;
  const userId = await seedUser(store.sql, price * fits);
  const keyId = await seedKey(store.sql, userId, keyBudget);
  let flooding = true;
  const flusher = (async () => {
    while (flooding) {
      await store.redis.del(...walletKeys(store.prefix, userId), loadingKey(store.prefix, userId));
      await Bun.sleep(5 + Math.floor(next() * 20));
    }
  })();
  const calls: Promise<boolean>[] = [];
  for (let i = 0; i < 300; i++) {
    const holdId = `f-${seed}-${userId}-${i}`;
    calls.push(
      ledger.hold({ holdId, userId, keyId, amountQuota: price }).then(async (held) => {
        if (!held.ok) return false;
        if (next() < 0.5) await ledger.post(holdId, price);
        return true;
      }),
    );
    if (next() < 0.3) await Bun.sleep(1);
  }
  const admitted = (await Promise.all(calls)).filter(Boolean).length;
  flooding = false;
  await flusher;
  const [row] = await store.sql<{ balance: bigint; key_used: bigint; pending: bigint }[]>`
    select u.balance_quota as balance, k.used_quota as key_used,
           coalesce((select sum(amount_quota) from holds
                     where user_id = u.id and state = 'pending'), 0)::bigint as pending
    from users u join api_keys k on k.user_id = u.id where u.id = ${userId}`;
  const sums = await ledgerSum(store.sql, userId);
  expect(sums.sum).toBe(sums.balance);
  return {
    admitted,
    balance: row!.balance,
    keyUsed: row!.key_used,
    pendingQuota: row!.pending,
  };
}

describe("holds while Redis is flushed again and again", () => {
  test("20 seeded runs: never more admitted than the wallet holds, no balance below zero", async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const totals = await floodWhileFlushing(seed, null);
      expect({ seed, admitted: totals.admitted <= 50 }).toEqual({ seed, admitted: true });
      // The flood does reach the limit: a flush delays admissions, it does not stop them.
      expect(totals.admitted).toBeGreaterThanOrEqual(25);
      expect({ seed, covered: totals.balance >= totals.pendingQuota }).toEqual({
        seed,
        covered: true,
      });
      expect(totals.balance).toBeGreaterThanOrEqual(0n);
    }
  }, 120_000);

  test("10 seeded runs through a key budget: the key never spends or holds past its budget", async () => {
    const budget = 5_500n * 20n;
    for (let seed = 101; seed <= 110; seed++) {
      const totals = await floodWhileFlushing(seed, budget);
      expect({ seed, admitted: totals.admitted <= 20 }).toEqual({ seed, admitted: true });
      expect(totals.admitted).toBeGreaterThanOrEqual(10);
      expect(totals.keyUsed + totals.pendingQuota).toBeLessThanOrEqual(budget);
      expect(totals.balance).toBeGreaterThanOrEqual(0n);
    }
  }, 120_000);
});

describe("a hold whose admitter died before confirming it", () => {
  test("is checked again before its task runs, and refused when a rebuilt wallet does not cover it", async () => {
    const userId = await seedUser(store.sql, 10_000n);
    const first = { holdId: `dead-${userId}-1`, userId, keyId: null, amountQuota: 10_000n };
    const second = { holdId: `dead-${userId}-2`, userId, keyId: null, amountQuota: 10_000n };
    const reserved = await ledger.reserve(first);
    expect(reserved.ok).toBe(true);
    // Redis is flushed before the first hold commits; the rebuilt wallet lacks it and
    // admits the second. Then the first commits and its process dies unconfirmed.
    await store.redis.del(...walletKeys(store.prefix, userId), loadingKey(store.prefix, userId));
    expect((await ledger.hold(second)).ok).toBe(true);
    await ledger.recordHold(store.sql, first);
    expect(await ledger.recheck(first)).toMatchObject({ ok: false, code: "insufficient_funds" });
    expect(await ledger.recheck(second)).toEqual({ ok: true });
    const wallet = await ledger.readWallet(userId);
    expect(wallet!.heldQuota).toBe(10_000n);
  });
});
