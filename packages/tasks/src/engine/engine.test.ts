// Proves the paid-task engine with a kind of its own (a test kind, not images): submissions
// group-commit and are charged once each, failures void their hold, a settlement batch in
// which one task fails lets the others land, and two runs settling one task charge it once.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLedger } from "@gw/ledger";
import { createLocalStorage } from "@gw/storage";
import { createTestStore } from "@gw/store/testing";
import type { PriceSnapshot } from "@gw/tariffs";
import { priceSnapshot, toBilling } from "@gw/tariffs";
import { newTaskId } from "../ids.ts";
import { findTask, insertTasks, type TaskRow } from "../records.ts";
import { startConsumer } from "./consume.ts";
import type { KindRunner } from "./kind.ts";
import { Lanes } from "./lanes.ts";
import { createSettler, type Settler } from "./settle.ts";
import { createSubmitter } from "./submit.ts";
import { requeueStranded } from "./sweep.ts";

const store = await createTestStore({ poolMax: 20 });
const { sql, redis, prefix } = store;
const dir = mkdtempSync(join(tmpdir(), "gw-engine-"));
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

async function account(quota: bigint): Promise<bigint> {
  const [user] = await sql<{ id: bigint }[]>`insert into users (name) values ('t') returning id`;
  await ledger.credit({ userId: user!.id, amountQuota: quota });
  return user!.id;
}

const call = (userId: bigint, prompt: string) => ({
  kind: "test",
  idPrefix: "tst" as const,
  userId,
  keyId: null,
  model: "echo",
  requestedModel: "echo",
  operation: "say",
  prompt,
  input: {},
  responseFormat: "url" as const,
  price: PRICE,
  holdQuota: 1000n,
});

/** The test kind: echoes its prompt into a text file, or fails when the prompt says so. */
const echo: KindRunner = {
  lane: () => "echo",
  async run(task) {
    if (task.prompt === "fail") return { ok: false, code: "upstream_error", message: "asked to" };
    return {
      ok: true,
      volume: 1,
      files: [
        {
          bytes: new TextEncoder().encode(task.prompt ?? ""),
          contentType: "text/plain",
          ext: "txt",
        },
      ],
    };
  },
};

/** A worker's consumer over the test store running `kind`, and the outcomes it reports. */
function startWorker(
  settler: Settler,
  kind: KindRunner,
  options: { workerId: string; partitions: number; capacity: number; lanes: number },
) {
  const outcomes: string[] = [];
  const consumer = startConsumer({
    run: {
      sql,
      ledger,
      storage,
      settler,
      lanes: new Lanes({}, options.lanes),
      kinds: { test: kind },
      workerId: options.workerId,
      leaseMs: 30_000,
      maxAttempts: 3,
      settleRetryMs: 5_000,
      log,
    },
    redis,
    prefix,
    partitions: options.partitions,
    capacity: options.capacity,
    claimIdleMs: 30_000,
    onOutcome: (_id, outcome) => outcomes.push(outcome),
  });
  return { consumer, outcomes };
}

async function ledgerOf(userId: bigint) {
  const [row] = await sql<{ balance: bigint; sum: bigint; charges: bigint; pending: bigint }[]>`
    select u.balance_quota as balance,
           (select coalesce(sum(delta_quota), 0)::bigint from ledger_entries where user_id = u.id) as sum,
           (select count(*) from ledger_entries where user_id = u.id and kind = 'charge') as charges,
           (select count(*) from holds where user_id = u.id and state = 'pending') as pending
    from users u where u.id = ${userId}`;
  return row!;
}

describe("the engine driven by a test kind", () => {
  test("60 concurrent submissions over 3 accounts: group-committed, run, each charged once", async () => {
    const users = await Promise.all([account(100_000n), account(100_000n), account(100_000n)]);
    const submitter = createSubmitter({ sql, redis, ledger, storage, prefix, partitions: 3, log });
    const settler = createSettler({ storage, sql, redis, prefix, ledger, log });
    const { consumer, outcomes } = startWorker(settler, echo, {
      workerId: "w1",
      partitions: 3,
      capacity: 256,
      lanes: 64,
    });
    try {
      const rows = await Promise.all(
        Array.from({ length: 60 }, (_, index) =>
          submitter.submit(call(users[index % 3]!, index % 10 === 9 ? "fail" : `hello ${index}`)),
        ),
      );
      expect(rows.every((row) => row.kind === "test" && row.id.startsWith("tst_"))).toBe(true);
      // Concurrent submissions shared commits.
      const sizes = submitter.stats();
      expect(sizes.items).toBe(60);
      expect(sizes.flushes).toBeLessThan(60);
      const deadline = Date.now() + 15_000;
      while (outcomes.length < 60 && Date.now() < deadline) await Bun.sleep(20);
      expect(outcomes.filter((outcome) => outcome === "completed")).toHaveLength(54);
      expect(outcomes.filter((outcome) => outcome === "failed")).toHaveLength(6);
      const done = await findTask(sql, rows[0]!.id);
      expect(done).toMatchObject({ status: "completed", charged_quota: 1000n, attempts: 1 });
      const file = await storage.get(done!.result!.files[0]!.key);
      expect(new TextDecoder().decode(file!.bytes)).toBe("hello 0");
      expect((await findTask(sql, rows[9]!.id))?.status).toBe("failed");
      for (const userId of users) {
        const state = await ledgerOf(userId);
        expect(state).toEqual({
          balance: 100_000n - 18_000n,
          sum: 100_000n - 18_000n,
          charges: 18n,
          pending: 0n,
        });
        expect((await ledger.readWallet(userId))?.heldQuota ?? 0n).toBe(0n);
      }
    } finally {
      await consumer.stop();
    }
  }, 30_000);
});

describe("a worker at capacity", () => {
  test("every partition's read loop resumes when a slot frees: 40 tasks on 4 partitions, 2 at once", async () => {
    const userId = await account(100_000n);
    const submitter = createSubmitter({ sql, redis, ledger, storage, prefix, partitions: 4, log });
    const settler = createSettler({ storage, sql, redis, prefix, ledger, log });
    const slow: KindRunner = {
      async run(task) {
        await Bun.sleep(5);
        return {
          ok: true,
          volume: 1,
          files: [
            {
              bytes: new TextEncoder().encode(task.prompt ?? ""),
              contentType: "text/plain",
              ext: "txt",
            },
          ],
        };
      },
    };
    const { consumer, outcomes } = startWorker(settler, slow, {
      workerId: "w-capacity",
      partitions: 4,
      capacity: 2,
      lanes: 64,
    });
    try {
      const rows = await Promise.all(
        Array.from({ length: 40 }, (_, index) => submitter.submit(call(userId, `job ${index}`))),
      );
      const deadline = Date.now() + 10_000;
      while (outcomes.length < 40 && Date.now() < deadline) await Bun.sleep(20);
      expect(outcomes.filter((outcome) => outcome === "completed")).toHaveLength(40);
      const [row] = await sql<{ open: number }[]>`
        select count(*)::int as open from tasks
        where id = any(${rows.map((task) => task.id)}) and status <> 'completed'`;
      expect(row!.open).toBe(0);
      expect((await ledgerOf(userId)).charges).toBe(40n);
    } finally {
      await consumer.stop();
    }
  }, 20_000);
});

describe("reserve -> charge -> refund through the engine", () => {
  test("the reserve is charged at submission; completion refunds the unused part, failure all", async () => {
    const userId = await account(100_000n);
    const submitter = createSubmitter({ sql, redis, ledger, storage, prefix, partitions: 2, log });
    const settler = createSettler({ storage, sql, redis, prefix, ledger, log });
    // Seconds of audio: 100 quota each, 10 s reserved; the run measures 4 s.
    const measured: PriceSnapshot = {
      ...PRICE,
      unit: "second",
      unitQuota: "100",
      quantity: 10,
      measured: true,
      reserveQuantity: 10,
    };
    const seconds: KindRunner = {
      async run(task) {
        if (task.prompt === "fail") return { ok: false, code: "upstream_error", message: "no" };
        return {
          ok: true,
          volume: 4,
          files: [{ bytes: new Uint8Array([1]), contentType: "audio/wav", ext: "wav" }],
        };
      },
    };
    const { consumer, outcomes } = startWorker(settler, seconds, {
      workerId: "w2",
      partitions: 2,
      capacity: 64,
      lanes: 8,
    });
    try {
      const rows = await Promise.all(
        ["a", "b", "c", "fail"].map((prompt) =>
          submitter.submit({
            ...call(userId, prompt),
            price: measured,
            holdQuota: 1_000n,
            money: "reserve",
          }),
        ),
      );
      expect(rows.every((row) => row.money === "reserve")).toBe(true);
      const deadline = Date.now() + 10_000;
      while (outcomes.length < 4 && Date.now() < deadline) await Bun.sleep(20);
      expect(outcomes.sort()).toEqual(["completed", "completed", "completed", "failed"]);
      // 3 x 400 charged in the end; the failed one got its whole reserve back.
      const state = await ledgerOf(userId);
      expect(state).toEqual({
        balance: 100_000n - 1_200n,
        sum: 100_000n - 1_200n,
        charges: 4n,
        pending: 0n,
      });
      const entries = await sql<{ kind: string; delta: bigint }[]>`
        select kind, sum(delta_quota)::bigint as delta from ledger_entries
        where user_id = ${userId} and kind <> 'credit' group by kind order by kind`;
      expect([...entries]).toEqual([
        { kind: "charge", delta: -4_000n },
        { kind: "refund", delta: 2_800n },
      ]);
      expect((await findTask(sql, rows[0]!.id))?.charged_quota).toBe(400n);
      expect((await ledger.readWallet(userId))?.balanceQuota).toBe(100_000n - 1_200n);
    } finally {
      await consumer.stop();
    }
  }, 20_000);
});

/** A queued, held task of the test kind, as submission leaves it. */
async function heldTask(userId: bigint, prompt = "p"): Promise<TaskRow> {
  const id = newTaskId("tst");
  const [row] = await insertTasks(sql, [
    {
      id,
      kind: "test",
      userId,
      keyId: null,
      model: "echo",
      requestedModel: "echo",
      operation: "say",
      prompt,
      input: {},
      responseFormat: "url",
      price: PRICE,
      holdQuota: 1000n,
      idempotencyKey: null,
      requestHash: null,
    },
  ]);
  const held = await ledger.hold({ holdId: id, userId, keyId: null, amountQuota: 1000n });
  if (!held.ok) throw new Error(held.code);
  return row!;
}

const complete = (task: TaskRow, owner: string, key = `results/${task.id}/a-0.txt`) => {
  const price = priceSnapshot(task.price, 1);
  return {
    type: "complete" as const,
    task,
    owner,
    files: [{ key, content_type: "text/plain" }],
    price,
    billing: toBilling(price),
    startedAt: new Date(),
  };
};

describe("batched settlement", () => {
  test("one bad settlement in a batch fails alone; the others land and are charged once", async () => {
    const userId = await account(50_000n);
    const settler = createSettler({ storage, sql, redis, prefix, ledger, log });
    const tasks = await Promise.all(Array.from({ length: 8 }, () => heldTask(userId)));
    // Its hold was voided behind its back (it expired): completing it cannot charge.
    await ledger.void(tasks[2]!.id);
    // A file name Postgres cannot store (NUL) breaks the batch statement itself.
    const poisoned = complete(tasks[5]!, "w", `results/${tasks[5]!.id}/\u0000.txt`);
    const results = await Promise.allSettled(
      tasks.map((task, index) => settler.settle(index === 5 ? poisoned : complete(task, "w"))),
    );
    expect(results[5]!.status).toBe("rejected");
    const outcomes = results.map((result) =>
      result.status === "fulfilled" ? result.value.outcome : "error",
    );
    expect(outcomes).toEqual([
      "completed",
      "completed",
      "failed",
      "completed",
      "completed",
      "error",
      "completed",
      "completed",
    ]);
    expect((await findTask(sql, tasks[2]!.id))?.fail_code).toBe("expired");
    expect((await findTask(sql, tasks[5]!.id))?.status).toBe("queued");
    expect(await ledgerOf(userId)).toEqual({
      balance: 50_000n - 6_000n,
      sum: 50_000n - 6_000n,
      charges: 6n,
      pending: 1n,
    });
  });

  test("two runs settling one task at once: one completes, the other is lost, one charge", async () => {
    const userId = await account(50_000n);
    const settlers = [1, 2].map(() => createSettler({ storage, sql, redis, prefix, ledger, log }));
    const tasks = await Promise.all(Array.from({ length: 10 }, () => heldTask(userId)));
    const results = await Promise.all(
      tasks.flatMap((task) => [
        settlers[0]!.settle(complete(task, "run-a")),
        settlers[1]!.settle(complete(task, "run-b")),
      ]),
    );
    const outcomes = results.map((result) => result.outcome).sort();
    expect(outcomes.filter((outcome) => outcome === "completed")).toHaveLength(10);
    expect(outcomes.filter((outcome) => outcome === "lost")).toHaveLength(10);
    expect(await ledgerOf(userId)).toEqual({
      balance: 50_000n - 10_000n,
      sum: 50_000n - 10_000n,
      charges: 10n,
      pending: 0n,
    });
  });
});

describe("a submission whose funds confirmation fails after the commit (soak, issue 16)", () => {
  test("answers its task, leaves it to the sweep, and the sweep's run checks the hold and charges once", async () => {
    const userId = await account(100_000n);
    // The ledger as it is, except that confirming reservations fails as it does when Redis
    // or Postgres drops the connection right after the commit.
    const failing: typeof ledger = {
      ...ledger,
      reserve: async (input) => {
        const reserved = await ledger.reserve(input);
        if (!reserved.ok) return reserved;
        const lost = Object.assign(new Error("write CONNECTION_CLOSED"), {
          code: "CONNECTION_CLOSED",
        });
        return {
          ok: true,
          reservation: { ...reserved.reservation, confirm: () => Promise.reject(lost) },
        };
      },
    };
    const lines: string[] = [];
    const submitter = createSubmitter({
      sql,
      redis,
      ledger: failing,
      storage,
      prefix,
      partitions: 1,
      log: (line) => lines.push(line),
    });
    const row = await submitter.submit(call(userId, "confirmed late"));
    expect(row.status).toBe("queued");
    expect(lines.some((line) => line.includes(`confirming the funds of ${row.id} failed`))).toBe(
      true,
    );
    expect(await findTask(sql, row.id)).toMatchObject({ status: "queued" });
    const jobs = await redis.xrange(`${prefix}:{jobs:0}`, "-", "+");
    expect(JSON.stringify(jobs).includes(row.id)).toBe(false); // not enqueued

    const settler = createSettler({ storage, sql, redis, prefix, ledger, log });
    const { consumer, outcomes } = startWorker(settler, echo, {
      workerId: "w-late",
      partitions: 1,
      capacity: 8,
      lanes: 4,
    });
    try {
      await Bun.sleep(20);
      expect(await requeueStranded(sql, redis, prefix, 1, 0)).toBeGreaterThanOrEqual(1);
      const deadline = Date.now() + 10_000;
      while (!outcomes.includes("completed") && Date.now() < deadline) await Bun.sleep(20);
      expect(await findTask(sql, row.id)).toMatchObject({
        status: "completed",
        charged_quota: 1000n,
      });
      expect(await ledgerOf(userId)).toEqual({
        balance: 99_000n,
        sum: 99_000n,
        charges: 1n,
        pending: 0n,
      });
      expect(await ledger.readWallet(userId)).toMatchObject({
        balanceQuota: 99_000n,
        heldQuota: 0n,
      });
    } finally {
      await consumer.stop();
    }
  }, 20_000);
});
