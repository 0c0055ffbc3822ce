// Proves a settlement batch locks its accounts in id order before it touches any, refunds'
// accounts included (found by the soak, issue 16): a batch posting for account B and
// refunding a reserve of account A (A < B) used to lock B (the posts) and then A (the
// refunds), so with a submission batch charging A then B (as submissions lock, in id
// order) Postgres broke a deadlock by failing one of them, and the api answered 500.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLedger } from "@gw/ledger";
import { createLocalStorage } from "@gw/storage";
import type { Sql } from "@gw/store";
import { createTestStore } from "@gw/store/testing";
import { type PriceSnapshot, priceSnapshot, toBilling } from "@gw/tariffs";
import type { TaskRow } from "../records.ts";
import { createSettler, type Settlement } from "./settle.ts";
import { createSubmitter } from "./submit.ts";

const store = await createTestStore({ poolMax: 20 });
const { sql, redis, prefix } = store;
const dir = mkdtempSync(join(tmpdir(), "gw-lock-order-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const storage = createLocalStorage(dir);
const ledger = createLedger({ sql, redis, prefix, holdTtlMs: 60_000 });
const log = () => {};

const PRICE: PriceSnapshot = {
  version: "v",
  model: "echo",
  operation: "say",
  unit: "request",
  unitQuota: "1000",
  parameters: {},
  quantity: 1,
  measured: false,
  reserveQuantity: 1,
  surcharges: [],
  discountPpm: 0,
};

async function account(): Promise<bigint> {
  const [user] = await sql<{ id: bigint }[]>`insert into users (name) values ('t') returning id`;
  await ledger.credit({ userId: user!.id, amountQuota: 100_000n });
  return user!.id;
}

const submitter = createSubmitter({ sql, redis, ledger, storage, prefix, partitions: 1, log });
const submit = (userId: bigint, money: "hold" | "reserve") =>
  submitter.submit({
    kind: "test",
    idPrefix: "tst",
    money,
    userId,
    keyId: null,
    model: "echo",
    requestedModel: "echo",
    operation: "say",
    prompt: "p",
    input: {},
    responseFormat: "url",
    price: PRICE,
    holdQuota: 1000n,
  });

const complete = (task: TaskRow): Settlement => {
  const price = priceSnapshot(task.price as PriceSnapshot, 1);
  return {
    type: "complete",
    task,
    owner: "w",
    files: [],
    price,
    billing: toBilling(price),
    startedAt: new Date(),
  };
};
const failure = (task: TaskRow): Settlement => ({
  type: "fail",
  task,
  owner: "w",
  code: "upstream_error",
  reason: "asked to",
});

/** A transaction that locks the account rows `first`, then `then` once told to. */
function locker(first: bigint, next: Promise<void>, then: bigint | null) {
  let locked: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    locked = resolve;
  });
  const done = sql.begin(async (raw) => {
    const tx = raw as unknown as Sql;
    await tx`update users set name = name where id = ${first}`;
    locked();
    await next;
    if (then !== null) await tx`update users set name = name where id = ${then}`;
  });
  return { ready, done };
}

test("a batch that posts for B and refunds A never deadlocks with a transaction locking A then B", async () => {
  const [a, b, c] = [await account(), await account(), await account()];
  const refunded = await submit(a, "reserve");
  const posted = await submit(b, "hold");
  const blockers = [await submit(c, "hold"), await submit(c, "hold")];
  // Transactions the settler opens: one per batch, plus one per item of a batch that failed.
  let transactions = 0;
  const counted = new Proxy(sql, {
    get(target, property, receiver) {
      if (property !== "begin") return Reflect.get(target, property, receiver);
      return (...args: Parameters<Sql["begin"]>) => {
        transactions++;
        return target.begin(...args);
      };
    },
  });
  const batches: number[] = [];
  const settler = createSettler({
    storage,
    sql: counted,
    redis,
    prefix,
    ledger,
    log,
    onBatch: (size) => batches.push(size),
  });

  // Both of the settler's flush slots wait on account C, so the two items that matter
  // queue up and go together in one batch once C is free.
  let freeC: () => void = () => {};
  const cLock = locker(c, new Promise<void>((resolve) => (freeC = resolve)), null);
  await cLock.ready;
  const blocked = blockers.map((task) => settler.settle(complete(task)));
  await Bun.sleep(100);
  let lockB: () => void = () => {};
  const submission = locker(a, new Promise<void>((resolve) => (lockB = resolve)), b);
  await submission.ready;
  const settled = [settler.settle(complete(posted)), settler.settle(failure(refunded))];
  freeC();
  await cLock.done;
  await Promise.all(blocked);
  // The batch of two is now waiting for A; the other transaction then wants B.
  await Bun.sleep(300);
  lockB();
  await submission.done;
  const outcomes = (await Promise.all(settled)).map((each) => each.outcome);

  expect(outcomes).toEqual(["completed", "failed"]);
  // One batch for each blocker, one for the pair, each one transaction: a deadlock would
  // have failed the pair's and settled its items again one by one.
  expect({ batches, transactions }).toEqual({ batches: [1, 1, 2], transactions: 3 });
  const [row] = await sql<{ refunds: bigint; charges: bigint }[]>`
    select count(*) filter (where kind = 'refund') as refunds,
           count(*) filter (where kind = 'charge') as charges
    from ledger_entries where hold_id in (${refunded.id}, ${posted.id})`;
  expect(row).toEqual({ refunds: 1n, charges: 2n });
}, 20_000);
