// Proves the task records and job delivery against real Postgres and Redis: of two
// claims one wins, a lapsed lease can be taken over, a run that lost its lease cannot
// complete, stranded tasks are listed for re-enqueueing once per period, jobs go through
// the consumer group and are reclaimed from a dead consumer, and waiters wake on announce.
import { describe, expect, test } from "bun:test";
import { connectRedis, duplicateClient } from "@gw/store";
import { createTestStore } from "@gw/store/testing";
import {
  CompletionWaiter,
  claimTask,
  completeTask,
  doneChannel,
  enqueue,
  ensureGroup,
  extendLease,
  failTask,
  findTask,
  insertTask,
  newTaskId,
  partitionOf,
  readJobs,
  reclaimJobs,
  requestHash,
  takeStrandedTasks,
} from "./index.ts";

const store = await createTestStore();
const { sql, redis, prefix } = store;
const [user] = await sql<{ id: bigint }[]>`insert into users (name) values ('t') returning id`;

async function newTask(): Promise<string> {
  const id = newTaskId("img");
  await insertTask(sql, {
    id,
    kind: "image",
    userId: user!.id,
    keyId: null,
    model: "m",
    requestedModel: "m",
    operation: "generate",
    prompt: "p",
    input: { n: 1 },
    responseFormat: "url",
    price: {
      version: "v",
      model: "m",
      operation: "generate",
      unit: "image",
      unitQuota: "100",
      parameters: {},
      quantity: 1,
      measured: false,
      reserveQuantity: 1,
      surcharges: [],
      discountPpm: 0,
    },
    holdQuota: 100n,
    idempotencyKey: null,
    requestHash: null,
  });
  return id;
}

describe("records", () => {
  test("of two claims one wins; a lapsed lease is taken over; the loser cannot complete", async () => {
    const id = await newTask();
    const claims = await Promise.all([
      claimTask(sql, id, "a", 60_000),
      claimTask(sql, id, "b", 60_000),
    ]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    const winner = claims.find(Boolean)!.lease_owner!;
    const loser = winner === "a" ? "b" : "a";
    expect(await claimTask(sql, id, loser, 60_000)).toBeNull();
    await sql`update tasks set lease_until = now() - interval '1 second' where id = ${id}`;
    const takeover = await claimTask(sql, id, loser, 60_000);
    expect(takeover?.attempts).toBe(2);
    expect(await extendLease(sql, id, winner, 60_000)).toBe(false);
    expect(await completeTask(sql, id, winner, [], {}, 100n)).toBe(false);
    expect(
      await completeTask(sql, id, loser, [{ key: "k", content_type: "image/png" }], {}, 100n),
    ).toBe(true);
    expect(await failTask(sql, id, null, "x", "late")).toBe(false);
    expect((await findTask(sql, id))?.status).toBe("completed");
  });

  test("stranded tasks are listed once per period", async () => {
    const queued = await newTask();
    await sql`update tasks set enqueued_at = now() - interval '1 hour' where id = ${queued}`;
    const running = await newTask();
    await claimTask(sql, running, "w", 60_000);
    await sql`update tasks set enqueued_at = now() - interval '1 hour' where id = ${running}`;
    const ids = (await takeStrandedTasks(sql, 60_000, 100)).map((row) => row.id);
    expect(ids).toContain(queued);
    expect(ids).not.toContain(running);
    expect((await takeStrandedTasks(sql, 60_000, 100)).map((row) => row.id)).not.toContain(queued);
  });

  test("the request hash ignores key order and sees every file byte", () => {
    const a = requestHash("e", { model: "m", input: { a: 1, b: 2 } }, [new Uint8Array([1])]);
    expect(requestHash("e", { input: { b: 2, a: 1 }, model: "m" }, [new Uint8Array([1])])).toBe(a);
    expect(requestHash("e", { model: "m", input: { a: 1, b: 2 } }, [new Uint8Array([2])])).not.toBe(
      a,
    );
    expect(requestHash("x", { model: "m", input: { a: 1, b: 2 } }, [new Uint8Array([1])])).not.toBe(
      a,
    );
  });
});

describe("jobs", () => {
  test("jobs go through the group; a dead consumer's job is reclaimed", async () => {
    const partition = partitionOf("img_a", 4);
    await ensureGroup(redis, prefix, partition);
    const reader = connectRedis(store.redisUrl);
    try {
      await enqueue(redis, prefix, 4, [{ taskId: "img_a", task: '{"id":"img_a"}' }]);
      const [job] = await readJobs(reader, prefix, partition, "dead", 10, 100);
      expect(job).toMatchObject({ taskId: "img_a", task: '{"id":"img_a"}', reclaimed: false });
      expect(await readJobs(reader, prefix, partition, "alive", 10, 50)).toEqual([]);
      await Bun.sleep(60);
      const reclaimed = await reclaimJobs(redis, prefix, partition, "alive", 50, 10);
      expect(reclaimed.map((each) => [each.taskId, each.reclaimed])).toEqual([["img_a", true]]);
    } finally {
      reader.disconnect();
    }
  });
});

describe("completion", () => {
  test("a waiter wakes on announcement, and times out with null", async () => {
    const waiter = new CompletionWaiter(duplicateClient(redis), doneChannel(prefix));
    await waiter.start();
    try {
      let done = false;
      const waiting = waiter.wait("img_x", async () => (done ? "finished" : null), 5_000);
      await Bun.sleep(50);
      done = true;
      await redis.publish(doneChannel(prefix), "img_x");
      expect(await waiting).toBe("finished");
      expect(await waiter.wait("img_y", async () => null, 100)).toBeNull();
      expect(waiter.waiting).toBe(0);
    } finally {
      waiter.stop();
    }
  });
});
