// Proves batched settlement: a batch of holds over several accounts charges each once
// with one balance and key update per account, a refused hold in a batch gets its own
// answer while the others land, concurrent batches with the same holds charge them once
// without deadlock, and a post racing a void has exactly one winner. Every wallet
// (Postgres and Redis) equals its ledger afterwards.
import { describe, expect, test } from "bun:test";
import type { Sql } from "@gw/store";
import { createTestStore } from "@gw/store/testing";
import { ledgerSum, seedKey, seedUser } from "./fixtures.ts";
import { createLedger } from "./ledger.ts";

const store = await createTestStore({ poolMax: 20 });
const ledger = createLedger({ sql: store.sql, redis: store.redis, prefix: store.prefix });
const tx = (run: (sql: Sql) => Promise<unknown>) =>
  store.sql.begin((sql) => run(sql as unknown as Sql)) as Promise<never>;

async function holds(userId: bigint, keyId: bigint | null, count: number, amount = 100n) {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const holdId = `h-${userId}-${index}-${Math.random().toString(36).slice(2)}`;
    const held = await ledger.hold({ holdId, userId, keyId, amountQuota: amount });
    if (!held.ok) throw new Error(held.code);
    ids.push(holdId);
  }
  return ids;
}

async function consistent(userId: bigint) {
  const { balance, sum } = await ledgerSum(store.sql, userId);
  expect(balance).toBe(sum);
  const wallet = await ledger.readWallet(userId);
  expect(wallet?.balanceQuota ?? balance).toBe(balance);
  expect(wallet?.heldQuota ?? 0n).toBe(0n);
  return balance;
}

describe("postMany", () => {
  test("50 holds over 3 accounts: one charge each, one update per account and key", async () => {
    const users = await Promise.all([1, 2, 3].map(() => seedUser(store.sql, 100_000n)));
    const key = await seedKey(store.sql, users[0]!, 50_000n);
    const items: {
      holdId: string;
      userId: bigint;
      amountQuota: bigint;
      details?: { model: string };
    }[] = [];
    for (const [index, userId] of users.entries()) {
      const ids = await holds(userId, index === 0 ? key : null, index === 0 ? 20 : 15);
      items.push(
        ...ids.map((holdId) => ({ holdId, userId, amountQuota: 90n, details: { model: "m" } })),
      );
    }
    const staged = await tx((sql) => ledger.postMany(sql, items));
    await (staged as Awaited<ReturnType<typeof ledger.postMany>>).afterCommit();
    const { result } = staged as Awaited<ReturnType<typeof ledger.postMany>>;
    expect(result.every((answer) => answer.ok && !answer.existed)).toBe(true);
    expect(await consistent(users[0]!)).toBe(100_000n - 20n * 90n);
    expect(await consistent(users[1]!)).toBe(100_000n - 15n * 90n);
    const [used] = await store.sql<
      { used_quota: bigint }[]
    >`select used_quota from api_keys where id = ${key}`;
    expect(used!.used_quota).toBe(20n * 90n);
    const [charges] = await store.sql<{ count: bigint }[]>`
      select count(*) from ledger_entries where kind = 'charge' and user_id = any(${users.map(String)}::bigint[])`;
    expect(charges!.count).toBe(50n);
  });

  test("a refused hold gets its answer while the others in the batch land", async () => {
    const userId = await seedUser(store.sql, 10_000n);
    const [a, b, c, d] = await holds(userId, null, 4);
    await ledger.void(b!);
    const staged = (await tx((sql) =>
      ledger.postMany(sql, [
        { holdId: a!, userId, amountQuota: 100n },
        { holdId: b!, userId, amountQuota: 100n },
        { holdId: c!, userId, amountQuota: 500n },
        { holdId: "no-such-hold", userId, amountQuota: 1n },
        { holdId: d!, userId, amountQuota: 40n },
      ]),
    )) as Awaited<ReturnType<typeof ledger.postMany>>;
    await staged.afterCommit();
    expect(staged.result.map((answer) => (answer.ok ? "posted" : answer.code))).toEqual([
      "posted",
      "hold_voided",
      "exceeds_hold",
      "hold_not_found",
      "posted",
    ]);
    // c is still pending: void it so the wallet holds nothing.
    await ledger.void(c!);
    expect(await consistent(userId)).toBe(10_000n - 140n);
  });

  test("two concurrent batches with the same holds charge each once, without deadlock", async () => {
    const users = await Promise.all([1, 2, 3, 4].map(() => seedUser(store.sql, 100_000n)));
    const items: {
      holdId: string;
      userId: bigint;
      amountQuota: bigint;
      details?: { model: string };
    }[] = [];
    for (const userId of users)
      items.push(
        ...(await holds(userId, null, 10)).map((holdId) => ({ holdId, userId, amountQuota: 100n })),
      );
    const reversed = [...items].reverse();
    const batches = await Promise.all(
      [items, reversed, items].map(
        (batch) =>
          tx((sql) => ledger.postMany(sql, batch)) as Promise<
            Awaited<ReturnType<typeof ledger.postMany>>
          >,
      ),
    );
    for (const batch of batches) await batch.afterCommit();
    const fresh = batches
      .flatMap((batch) => batch.result)
      .filter((answer) => answer.ok && !answer.existed);
    expect(fresh).toHaveLength(40);
    for (const userId of users) expect(await consistent(userId)).toBe(100_000n - 1_000n);
  });

  test("a post racing a void: exactly one wins, and the wallet agrees", async () => {
    const userId = await seedUser(store.sql, 10_000n);
    const ids = await holds(userId, null, 20);
    const [posts, voids] = (await Promise.all([
      tx((sql) =>
        ledger.postMany(
          sql,
          ids.map((holdId) => ({ holdId, userId, amountQuota: 100n })),
        ),
      ),
      tx((sql) => ledger.voidMany(sql, ids)),
    ])) as [
      Awaited<ReturnType<typeof ledger.postMany>>,
      Awaited<ReturnType<typeof ledger.voidMany>>,
    ];
    await posts.afterCommit();
    await voids.afterCommit();
    for (const [index] of ids.entries()) {
      const posted = posts.result[index]!.ok;
      const voided = voids.result[index]!.ok;
      expect(posted !== voided).toBe(true);
    }
    const charged = BigInt(posts.result.filter((answer) => answer.ok).length) * 100n;
    expect(await consistent(userId)).toBe(10_000n - charged);
  });
});

describe("recordHolds", () => {
  test("a group commit's holds are written in one statement, and a known id keeps none", async () => {
    const userId = await seedUser(store.sql, 10_000n);
    const input = (holdId: string) => ({ holdId, userId, keyId: null, amountQuota: 100n });
    const ids = ["rh-a", "rh-b", "rh-c"].map((id) => `${id}-${userId}`);
    await tx((sql) => ledger.recordHolds(sql, ids.map(input)));
    const written = await store.sql<{ id: string; state: string; amount_quota: bigint }[]>`
      select id, state, amount_quota from holds where id = any(${ids}) order by id`;
    expect(written.map((row) => [row.id, row.state, row.amount_quota])).toEqual(
      ids.map((id) => [id, "pending", 100n]),
    );
    const fresh = `rh-d-${userId}`;
    await expect(
      tx((sql) => ledger.recordHolds(sql, [input(fresh), input(ids[0]!)])),
    ).rejects.toThrow("exists already");
    const [row] = await store.sql<{ count: number }[]>`
      select count(*)::int as count from holds where id = ${fresh}`;
    expect(row!.count).toBe(0);
  });

  test("a settlement run again after a commit whose answer was lost posts once, and Redis hears of it", async () => {
    const userId = await seedUser(store.sql, 10_000n);
    const input = { holdId: `rh-lost-${userId}`, userId, keyId: null, amountQuota: 500n };
    const reserved = await ledger.reserve(input);
    if (!reserved.ok) throw new Error("refused");
    const settle = () =>
      store.sql.begin(async (raw) => {
        const sql = raw as unknown as Sql;
        await ledger.recordHolds(sql, [input], { keepExisting: true });
        return ledger.postMany(sql, [{ holdId: input.holdId, userId, amountQuota: 300n }]);
      });
    await settle(); // committed; its answer (and so its Redis update) lost
    const again = await settle();
    expect(again.result).toEqual([{ ok: true, existed: true, postedQuota: 300n, entryId: null }]);
    await again.afterCommit();
    expect(await ledger.readWallet(userId)).toEqual({
      balanceQuota: 9_700n,
      heldQuota: 0n,
      availableQuota: 9_700n,
    });
  });
});

describe("postMany capped to funds", () => {
  test("charges past the balance or a key's budget are cut to what is left, in batch order", async () => {
    const userId = await seedUser(store.sql, 1_000n);
    const keyId = await seedKey(store.sql, userId, 600n);
    // Holds a flush let through: Postgres has them, but together they exceed the funds.
    const inputs = [
      { holdId: `cap-1-${userId}`, userId, keyId, amountQuota: 400n },
      { holdId: `cap-2-${userId}`, userId, keyId, amountQuota: 400n },
      { holdId: `cap-3-${userId}`, userId, keyId: null, amountQuota: 500n },
    ];
    await tx((sql) => ledger.recordHolds(sql, inputs));
    const staged = await store.sql.begin((raw) =>
      ledger.postMany(
        raw as unknown as Sql,
        inputs.map((input) => ({ holdId: input.holdId, userId, amountQuota: input.amountQuota })),
        { capToFunds: true },
      ),
    );
    await staged.afterCommit();
    expect(staged.result.map((answer) => answer.ok && answer.postedQuota)).toEqual([
      400n,
      200n, // the key's budget has 200 left
      200n, // the balance has 200 left once the first two are counted at what they asked
    ]);
    const [row] = await store.sql<{ balance: bigint; used: bigint }[]>`
      select u.balance_quota as balance, k.used_quota as used
      from users u join api_keys k on k.user_id = u.id where u.id = ${userId}`;
    expect(row).toEqual({ balance: 200n, used: 600n });
    const entries = await store.sql<
      { hold_id: string; other: { capped_from_quota?: string } | null }[]
    >`
      select hold_id, other from ledger_entries where user_id = ${userId} and kind = 'charge'
      order by hold_id`;
    expect(entries.map((entry) => entry.other?.capped_from_quota ?? null)).toEqual([
      null,
      "400",
      "500",
    ]);
    const { balance, sum } = await ledgerSum(store.sql, userId);
    expect(balance).toBe(sum);
    expect((await ledger.readWallet(userId))?.balanceQuota).toBe(200n);
  });
});

describe("a settlement batch and new holds of the same account", () => {
  test("a new hold is recorded while a batch holds the account's row (no key lock conflict)", async () => {
    const userId = await seedUser(store.sql, 10_000n);
    const [pending] = await holds(userId, null, 1);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked: () => void = () => {};
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const batch = tx(async (sql) => {
      await ledger.postMany(sql, [{ holdId: pending!, userId, amountQuota: 100n }]);
      locked();
      await held;
    });
    await isLocked;
    // The hold's foreign key takes a key-share lock on the account row: it must not wait
    // for the batch, or submissions of a busy account queue behind its settlements.
    const recorded = await Promise.race([
      tx((sql) =>
        ledger.recordHolds(sql, [
          { holdId: `nk-${userId}`, userId, keyId: null, amountQuota: 100n },
        ]),
      ).then(() => "recorded"),
      Bun.sleep(2_000).then(() => "blocked"),
    ]);
    release();
    await batch;
    expect(recorded).toBe("recorded");
  });
});
