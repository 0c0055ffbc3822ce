import { expect, test } from "bun:test";
import { createTestStore } from "@gw/store/testing";
import { ack, enqueue, ensureGroup, queueStats, readJobs } from "./queue.ts";

const store = await createTestStore();

test("queue depth counts undelivered and unacknowledged jobs; the oldest age is the oldest of them", async () => {
  const { redis, prefix } = store;
  await ensureGroup(redis, prefix, 0);
  expect(await queueStats(redis, prefix, 1)).toEqual([{ partition: 0, depth: 0, oldestAgeMs: 0 }]);
  await enqueue(redis, prefix, 1, [{ taskId: "a" }, { taskId: "b" }, { taskId: "c" }]);
  const added = Date.now();
  const [taken] = await readJobs(redis, prefix, 0, "w1", 1, 10);
  let [stats] = await queueStats(redis, prefix, 1, added + 5_000);
  expect(stats?.depth).toBe(3);
  expect(stats?.oldestAgeMs).toBeGreaterThanOrEqual(4_900);
  expect(stats?.oldestAgeMs).toBeLessThan(6_000);
  await ack(redis, prefix, taken!);
  [stats] = await queueStats(redis, prefix, 1);
  expect(stats?.depth).toBe(2);
  const rest = await readJobs(redis, prefix, 0, "w1", 10, 10);
  for (const job of rest) await ack(redis, prefix, job);
  expect(await queueStats(redis, prefix, 1)).toEqual([{ partition: 0, depth: 0, oldestAgeMs: 0 }]);
});
