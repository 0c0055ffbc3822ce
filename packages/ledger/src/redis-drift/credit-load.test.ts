// Soak violation 4d (issue 16): a wallet load whose snapshot predates a credit, written after the
// credit's Redis update found no wallet, loses the credit.

import { expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { runLua } from "@gw/store";
import { createTestStore } from "@gw/store/testing";
import { ledgerSum, seedUser } from "../fixtures.ts";
import { createLedger } from "../ledger.ts";
import { appliedKey, loadingKey, scripts, walletKeys } from "../scripts.ts";

const store = await createTestStore();
const { sql, redis, prefix } = store;
const ledger = createLedger({ sql, redis, prefix });

test("a wallet load whose snapshot predates a credit, written after the credit's Redis update", async () => {
  const userId = await seedUser(sql, 10_000n);
  // loadWallet's steps, with the credit between its read of Postgres and its write to Redis.
  const token = randomUUID();
  const loading = loadingKey(prefix, userId);
  await redis.multi().sadd(loading, token).pexpire(loading, 60_000).exec();
  const [user] = await sql<
    { balance_quota: bigint; wallet_version: bigint }[]
  >`select balance_quota, wallet_version from users where id = ${userId}`;
  await ledger.credit({ userId, amountQuota: 5_000n }); // commits; Redis has no wallet
  const written = await runLua(
    redis,
    scripts.loadWallet,
    [...walletKeys(prefix, userId), loading, appliedKey(prefix, userId)],
    [token, user!.wallet_version, user!.balance_quota, "0"],
  );
  expect(written).toBe(-1); // the stale snapshot is refused: read Postgres again
  const { balance } = await ledgerSum(sql, userId);
  expect(balance).toBe(15_000n);
  const wallet = await ledger.readWallet(userId);
  expect(wallet?.balanceQuota).toBe(balance);
});
