// A load that read Postgres while a wallet was missing, still under way when another load
// wrote the wallet, changes were taken, and the reconciler then dropped it (behind): its
// old snapshot must not be written over the changes the dropped wallet had taken.
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

test("a load under way when the reconciler drops a wallet reads Postgres again", async () => {
  const userId = await seedUser(sql, 10_000n);
  const token = randomUUID();
  const loading = loadingKey(prefix, userId);
  await redis.multi().sadd(loading, token).pexpire(loading, 60_000).exec();
  const [stale] = await sql<{ balance_quota: bigint; wallet_version: bigint }[]>`
    select balance_quota, wallet_version from users where id = ${userId}`;
  await ledger.readWallet(userId); // another process loads the wallet first
  await ledger.credit({ userId, amountQuota: 5_000n }); // taken by the loaded wallet
  // A change whose update is lost leaves the wallet behind; two passes 5 s apart drop it.
  await sql`update users set wallet_version = wallet_version + 1 where id = ${userId}`;
  const now = Date.now();
  await ledger.reconcile(now);
  expect((await ledger.reconcile(now + 5_000)).walletsReloaded).toBe(1);
  const written = await runLua(
    redis,
    scripts.loadWallet,
    [...walletKeys(prefix, userId), loading, appliedKey(prefix, userId)],
    [token, stale!.wallet_version, stale!.balance_quota, "0"],
  );
  expect(written).toBe(-1);
  const { balance } = await ledgerSum(sql, userId);
  expect(balance).toBe(15_000n);
  expect((await ledger.readWallet(userId))?.balanceQuota).toBe(15_000n);
});
