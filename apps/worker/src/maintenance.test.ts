// Proves the worker's maintenance voids expired holds once, even with several workers racing.
import { expect, test } from "bun:test";
import { createLedger } from "@gw/ledger";
import { createTestStore } from "@gw/store/testing";
import { runMaintenance } from "./maintenance.ts";

const store = await createTestStore();
const ledger = createLedger({ sql: store.sql, redis: store.redis, prefix: store.prefix });

test("of several workers in one period, one reconciles and the expired hold is voided", async () => {
  const [user] = await store.sql<{ id: bigint }[]>`
    insert into users (name, balance_quota) values ('w', 1000) returning id`;
  const userId = user!.id;
  await ledger.hold({ holdId: `w-${userId}`, userId, keyId: null, amountQuota: 400n, ttlMs: 1 });
  await Bun.sleep(5);
  const reports = await Promise.all(
    ["a", "b", "c"].map((workerId) =>
      runMaintenance({
        ledger,
        redis: store.redis,
        prefix: store.prefix,
        workerId,
        intervalMs: 60_000,
        log: () => {},
      }),
    ),
  );
  expect(reports.filter((report) => report !== null)).toHaveLength(1);
  expect(reports.find((report) => report !== null)!.expiredVoided).toBe(1);
  expect((await ledger.findHold(`w-${userId}`))!.state).toBe("voided");
  expect((await ledger.readWallet(userId))!.availableQuota).toBe(1000n);
});
