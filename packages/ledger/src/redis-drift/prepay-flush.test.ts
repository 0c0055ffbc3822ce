// Soak violation 4b (issue 16): an audio reserve charged at submission and confirmed after a Redis
// flush is taken off the rebuilt balance a second time.
import { expect, test } from "bun:test";
import { deleteKeys } from "@gw/store";
import { createTestStore } from "@gw/store/testing";
import { ledgerSum, seedKey, seedUser } from "../fixtures.ts";
import { createLedger } from "../ledger.ts";

const store = await createTestStore();
const { sql } = store;
const ledger = createLedger({ sql, redis: store.redis, prefix: store.prefix });

test("flush between a reserve's admission and its confirmation", async () => {
  const userId = await seedUser(sql, 10_000n);
  const keyId = await seedKey(sql, userId, null);
  const prepaid = await ledger.prepay({ holdId: "aud-x", userId, keyId, amountQuota: 3_000n });
  if (!prepaid.ok) throw new Error("refused");
  await sql.begin((tx) => prepaid.chargeWithin(tx as never));
  await deleteKeys(store.redis, `${store.prefix}:*`); // the flush
  const confirmed = await prepaid.afterCommit();
  const { balance } = await ledgerSum(sql, userId);
  const wallet = await ledger.readWallet(userId);
  expect(wallet?.balanceQuota).toBe(balance);
});
