// Proves the journal of owed charges: a text answer's charge written to Redis before the
// answer goes out is posted by the worker's maintenance when the api that owed it died
// before its batch committed, once (a second recovery, or an api that did post, changes
// nothing), with the dead api's Redis reservation settled by the posting.
import { expect, test } from "bun:test";
import { createTestStore } from "@gw/store/testing";
import { journalKey } from "./charge-journal.ts";
import { ledgerSum, seedKey, seedUser } from "./fixtures.ts";
import { createLedger } from "./ledger.ts";

const store = await createTestStore();
const { sql, redis, prefix } = store;
const ledger = createLedger({ sql, redis, prefix });

async function wallet(userId: bigint) {
  const fields = await redis.hgetall(`${prefix}:{u:${userId}}:wallet`);
  return { balance: fields.balance, held: fields.held };
}

test("an owed charge of a dead api is posted once, its hold written, Redis settled", async () => {
  const userId = await seedUser(sql, 1_000_000n);
  const keyId = await seedKey(sql, userId, null);
  const hold = { holdId: "txt_owed_1", userId, keyId, amountQuota: 5_000n };
  const reserved = await ledger.reserve(hold);
  expect(reserved.ok).toBe(true);
  expect(await wallet(userId)).toEqual({ balance: "1000000", held: "5000" });
  // The api answered (the charge is owed) and died before its batch: no Postgres row.
  await ledger.journalCharge({
    hold,
    amountQuota: 3_210n,
    details: { requestId: "req-1", model: "lumen-chat", promptTokens: 12, completionTokens: 30 },
  });
  expect(await ledger.recoverCharges(60_000)).toBe(0); // too young: its api may still post it
  expect(await ledger.recoverCharges(0, Date.now() + 1)).toBe(1);
  const [entry] = await sql<{ delta_quota: bigint; prompt_tokens: number; request_id: string }[]>`
    select delta_quota, prompt_tokens, request_id from ledger_entries where hold_id = 'txt_owed_1'`;
  expect(entry).toEqual({ delta_quota: -3_210n, prompt_tokens: 12, request_id: "req-1" });
  expect(await ledgerSum(sql, userId)).toEqual({
    balance: 1_000_000n - 3_210n,
    sum: 1_000_000n - 3_210n,
  });
  expect(await wallet(userId)).toEqual({ balance: String(1_000_000 - 3_210), held: "0" });
  expect(await redis.xlen(journalKey(prefix))).toBe(0);
  // Again: nothing more.
  expect(await ledger.recoverCharges(0, Date.now() + 1)).toBe(0);
  const [count] = await sql<
    { n: bigint }[]
  >`select count(*) as n from ledger_entries where hold_id = 'txt_owed_1'`;
  expect(count!.n).toBe(1n);
});

test("an entry its api did post (but had not forgotten) is not charged twice; one above the estimate raises the hold", async () => {
  const userId = await seedUser(sql, 1_000_000n);
  const posted = { holdId: "txt_owed_2", userId, keyId: null, amountQuota: 1_000n };
  await ledger.reserve(posted);
  await sql.begin(async (tx) => {
    await ledger.recordHolds(tx as never, [posted]);
    const staged = await ledger.postMany(tx as never, [
      { holdId: "txt_owed_2", userId, amountQuota: 900n },
    ]);
    return staged;
  });
  await ledger.journalCharge({ hold: posted, amountQuota: 900n, details: {} });
  const above = { holdId: "txt_owed_3", userId, keyId: null, amountQuota: 1_000n };
  await ledger.reserve(above);
  await ledger.journalCharge({ hold: above, amountQuota: 1_400n, details: {} });
  expect(await ledger.recoverCharges(0, Date.now() + 1)).toBe(2);
  const rows = await sql<{ hold_id: string; delta_quota: bigint }[]>`
    select hold_id, delta_quota from ledger_entries where user_id = ${userId} and kind = 'charge' order by hold_id`;
  expect([...rows]).toEqual([
    { hold_id: "txt_owed_2", delta_quota: -900n },
    { hold_id: "txt_owed_3", delta_quota: -1_400n },
  ]);
  expect(await ledgerSum(sql, userId)).toEqual({
    balance: 1_000_000n - 2_300n,
    sum: 1_000_000n - 2_300n,
  });
});
