// Soak violation 4c (issue 16): an image hold whose task settled before the api confirmed it (after
// a flush) is counted again by the late confirm and released again by the reconciler.
import { expect, test } from "bun:test";
import { deleteKeys } from "@gw/store";
import { createTestStore } from "@gw/store/testing";
import { ledgerSum, seedKey, seedUser } from "../fixtures.ts";
import { createLedger } from "../ledger.ts";

const store = await createTestStore();
const { sql } = store;
const ledger = createLedger({ sql, redis: store.redis, prefix: store.prefix });

test("an image hold confirmed late (after its task was posted), then reconciled", async () => {
  const userId = await seedUser(sql, 10_000n);
  const keyId = await seedKey(sql, userId, null);
  const input = { holdId: "img_x", userId, keyId, amountQuota: 1_000n };
  const reserved = await ledger.reserve(input);
  if (!reserved.ok) throw new Error("refused");
  await sql.begin((tx) => ledger.recordHold(tx as never, input)); // the submission commits
  await deleteKeys(store.redis, `${store.prefix}:*`); // a flush; the api is slow to confirm
  await ledger.post("img_x", 1_000n); // a worker (sweep) runs and settles the task
  await reserved.reservation.confirm(); // the api's confirm, late
  await ledger.reconcile(); // the reconciler's pass
  const { balance } = await ledgerSum(sql, userId);
  const wallet = await ledger.readWallet(userId);
  expect(wallet?.balanceQuota).toBe(balance);
});
