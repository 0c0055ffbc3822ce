// Soak violation 4a (issue 16): a text hold admitted before a Redis flush and posted (written with
// its charge) after the wallet was rebuilt leaves the charge out of Redis.
import { expect, test } from "bun:test";
import { deleteKeys } from "@gw/store";
import { createTestStore } from "@gw/store/testing";
import { ledgerSum, seedKey, seedUser } from "../fixtures.ts";
import { createLedger } from "../ledger.ts";

const store = await createTestStore();
const { sql } = store;
const ledger = createLedger({ sql, redis: store.redis, prefix: store.prefix });

test("flush between a text hold's admission and its post (hold written with its charge)", async () => {
  const userId = await seedUser(sql, 10_000n);
  const keyId = await seedKey(sql, userId, null);
  const input = { holdId: "txt_x", userId, keyId, amountQuota: 500n };
  const reserved = await ledger.reserve(input);
  if (!reserved.ok) throw new Error("refused");
  await deleteKeys(store.redis, `${store.prefix}:*`); // the flush
  await ledger.readWallet(userId); // another call rebuilds the wallet
  const staged = await sql.begin(async (tx) => {
    await ledger.recordHolds(tx as never, [input]);
    return ledger.postMany(tx as never, [{ holdId: "txt_x", userId, amountQuota: 300n }]);
  });
  await staged.afterCommit();
  const { balance } = await ledgerSum(sql, userId);
  const wallet = await ledger.readWallet(userId);
  expect(wallet?.balanceQuota).toBe(balance);
});
