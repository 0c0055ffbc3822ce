// Proves the lane bounds calls in flight, hands freed slots to waiters in arrival order,
// and lets a waiter leave on abort or after its wait limit without taking a slot.
import { expect, test } from "bun:test";
import { createLane } from "./lane.ts";

const never = new AbortController().signal;

test("takes slots up to the limit, then refuses at once", () => {
  const lane = createLane(2);
  expect([lane.tryAcquire(), lane.tryAcquire(), lane.tryAcquire()]).toEqual([true, true, false]);
  lane.release();
  expect(lane.active()).toBe(1);
  expect(lane.tryAcquire()).toBe(true);
});

test("a freed slot goes to the oldest waiter, keeping the count", async () => {
  const lane = createLane(1);
  expect(lane.tryAcquire()).toBe(true);
  const order: string[] = [];
  const first = lane.wait(never, 1000).then((held) => order.push(`first ${held}`));
  const second = lane.wait(never, 1000).then((held) => order.push(`second ${held}`));
  expect(lane.waiting()).toBe(2);
  lane.release();
  await first;
  expect([order, lane.active(), lane.waiting()]).toEqual([["first true"], 1, 1]);
  lane.release();
  await second;
  lane.release();
  expect([order, lane.active()]).toEqual([["first true", "second true"], 0]);
});

test("a waiter leaves on abort and after its wait limit, holding nothing", async () => {
  const lane = createLane(1);
  lane.tryAcquire();
  const controller = new AbortController();
  const aborted = lane.wait(controller.signal, 10_000);
  const timedOut = lane.wait(never, 5);
  controller.abort();
  expect(await aborted).toBe(false);
  expect(await timedOut).toBe(false);
  expect([lane.active(), lane.waiting()]).toEqual([1, 0]);
  lane.release();
  expect(lane.active()).toBe(0);
  expect(() => lane.release()).toThrow();
});
