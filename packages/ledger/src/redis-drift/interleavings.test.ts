// Proves the Redis wallet equals Postgres after any interleaving of the ledger's changes
// with Redis losing the wallet: image-style holds posted or voided, text-style holds
// written with their charge (or recorded first, then posted in a batch), prepaid reserves
// charged and refunded, credits, and loads, while the wallet's keys are deleted every few
// milliseconds, and updates are lost now and then (a process killed after its commit).
// After the reconciler's passes no change may be lost or doubled.
import { expect, test } from "bun:test";
import { Random } from "@gw/random";
import type { Sql } from "@gw/store";
import { createTestStore } from "@gw/store/testing";
import { ledgerSum, seedKey, seedUser } from "../fixtures.ts";
import { createLedger } from "../ledger.ts";
import { appliedKey, loadingKey, walletKeys } from "../scripts.ts";

const store = await createTestStore({ poolMax: 20 });
const { sql, redis, prefix } = store;
const ledger = createLedger({ sql, redis, prefix });

/** The draws of a seeded source, so a failing seed can be run again. */
function random(seed: number): () => number {
  const source = new Random(seed);
  return () => source.next();
}

const pause = (next: () => number, ms: number) => Bun.sleep(Math.floor(next() * ms));

async function oneCall(next: () => number, userId: bigint, keyId: bigint, id: string) {
  const kind = next();
  const amountQuota = 100n + BigInt(Math.floor(next() * 900));
  const input = { holdId: id, userId, keyId, amountQuota };
  if (kind < 0.25) {
    // An image task: hold, then post for at most the hold, or void.
    const held = await ledger.hold(input);
    if (!held.ok) return;
    await pause(next, 10);
    if (next() < 0.8) await ledger.post(id, amountQuota - BigInt(Math.floor(next() * 50)));
    else await ledger.void(id);
  } else if (kind < 0.55) {
    // Short text calls, two of one account in one batch: admitted in Redis, written with
    // their charges in one transaction. Now and then the process dies before Redis hears
    // of it: the reconciler (for holds Redis still has) or its wallet check mends that.
    const second = { ...input, holdId: `${id}b` };
    const reserved = await Promise.all([ledger.reserve(input), ledger.reserve(second)]);
    const admitted = [input, second].filter((_, at) => reserved[at]!.ok);
    if (admitted.length === 0) return;
    await pause(next, 10);
    const staged = await sql.begin(async (tx) => {
      await ledger.recordHolds(tx as unknown as Sql, admitted);
      return ledger.postMany(
        tx as unknown as Sql,
        admitted.map((hold) => ({
          holdId: hold.holdId,
          userId,
          amountQuota: BigInt(Math.floor(next() * Number(amountQuota))),
        })),
      );
    });
    if (next() < 0.85) await staged.afterCommit();
  } else if (kind < 0.7) {
    // A long text call: recorded first and confirmed (maybe after the post), posted later.
    const reserved = await ledger.reserve(input);
    if (!reserved.ok) return;
    await sql.begin((tx) => ledger.recordHolds(tx as unknown as Sql, [input]));
    const confirming = pause(next, 10).then(() => reserved.reservation.confirm());
    await pause(next, 10);
    const staged = await sql.begin((tx) =>
      ledger.postMany(tx as unknown as Sql, [{ holdId: id, userId, amountQuota: 50n }]),
    );
    await staged.afterCommit();
    await confirming;
  } else if (kind < 0.9) {
    // An audio task: the reserve charged at submission, the unused part refunded.
    const prepaid = await ledger.prepay(input);
    if (!prepaid.ok) return;
    await sql.begin((tx) => prepaid.chargeWithin(tx as unknown as Sql));
    const confirmed = await prepaid.afterCommit();
    await pause(next, 10);
    const actual = confirmed.ok ? BigInt(Math.floor(next() * Number(amountQuota))) : 0n;
    const staged = await sql.begin((tx) => ledger.refundWithin(tx as unknown as Sql, id, actual));
    await staged.afterCommit();
  } else if (kind < 0.95) {
    await ledger.credit({ userId, amountQuota });
  } else {
    await ledger.readWallet(userId);
  }
}

async function run(seed: number) {
  const next = random(seed);
  const users = await Promise.all([seedUser(sql, 200_000n), seedUser(sql, 200_000n)]);
  const keys = await Promise.all(users.map((userId) => seedKey(sql, userId, null)));
  let flushing = true;
  const flusher = (async () => {
    while (flushing) {
      const userId = users[Math.floor(next() * users.length)]!;
      await redis.del(
        ...walletKeys(prefix, userId),
        appliedKey(prefix, userId),
        loadingKey(prefix, userId),
      );
      await pause(next, 20);
    }
  })();
  const calls: Promise<void>[] = [];
  for (let i = 0; i < 240; i++) {
    const at = Math.floor(next() * users.length);
    calls.push(
      pause(next, 400).then(() => oneCall(next, users[at]!, keys[at]!, `il-${seed}-${at}-${i}`)),
    );
  }
  await Promise.all(calls);
  flushing = false;
  await flusher;
  // The reconciler's passes: settled holds Redis still has, then wallets left behind.
  const now = Date.now();
  await ledger.reconcile(now);
  await ledger.reconcile(now + 6_000);
  const drift: string[] = [];
  for (const [at, userId] of users.entries()) {
    const { balance, sum } = await ledgerSum(sql, userId);
    expect(balance).toBe(sum);
    const [wallet, holds] = walletKeys(prefix, userId);
    const state = await redis.hgetall(wallet);
    if (!state.balance) continue; // flushed or dropped: its next use loads it from Postgres
    const [row] = await sql<{ wallet_version: bigint; used_quota: bigint }[]>`
      select u.wallet_version, k.used_quota from users u join api_keys k on k.user_id = u.id
      where u.id = ${userId}`;
    const seen = {
      balance: state.balance,
      held: state.held,
      used: state[`k:${keys[at]}:used`],
      open: await redis.hlen(holds),
      version: state.ver,
    };
    const want = {
      balance: String(balance),
      held: "0",
      used: String(row!.used_quota),
      open: 0,
      version: String(row!.wallet_version),
    };
    if (JSON.stringify(seen) !== JSON.stringify(want))
      drift.push(`seed ${seed} user ${userId}: ${JSON.stringify(seen)} ≠ ${JSON.stringify(want)}`);
  }
  return drift;
}

test("Redis equals Postgres after every interleaving of changes, loads and flushes (8 seeds)", async () => {
  const drift: string[] = [];
  for (let seed = 1; seed <= 8; seed++) drift.push(...(await run(seed)));
  expect(drift).toEqual([]);
}, 60_000);
