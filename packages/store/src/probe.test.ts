// Proves the probes say true for the real local Postgres and Redis, and false, quickly and silently, for a closed port, a silent listener and a bad URL.
import { afterAll, expect, spyOn, test } from "bun:test";
import { createServer } from "node:net";
import { freePort } from "./embedded/index.ts";
import { postgresAnswers, redisAnswers } from "./probe.ts";
import { TEST_DATABASE_URL, TEST_REDIS_URL } from "./testing.ts";

// A listener that accepts and never answers: the probe must give up on its own timer.
const silent = createServer(() => {});
await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", () => resolve()));
const silentPort = (silent.address() as { port: number }).port;
afterAll(() => silent.close());

test("real Postgres and Redis answer", async () => {
  expect(await postgresAnswers(TEST_DATABASE_URL)).toBe(true);
  expect(await redisAnswers(TEST_REDIS_URL)).toBe(true);
});

test("a closed port answers false without printing anything", async () => {
  const port = await freePort();
  const errors = spyOn(console, "error");
  try {
    expect(await postgresAnswers(`postgres://postgres@127.0.0.1:${port}/postgres`)).toBe(false);
    expect(await redisAnswers(`redis://127.0.0.1:${port}`)).toBe(false);
    await Bun.sleep(50); // late "error" events would land here
    expect(errors).not.toHaveBeenCalled();
  } finally {
    errors.mockRestore();
  }
});

test("a listener that never answers is given up on within the timeout", async () => {
  const started = Date.now();
  const [pg, redis] = await Promise.all([
    postgresAnswers(`postgres://postgres@127.0.0.1:${silentPort}/postgres`, 300),
    redisAnswers(`redis://127.0.0.1:${silentPort}`, 300),
  ]);
  expect([pg, redis]).toEqual([false, false]);
  expect(Date.now() - started).toBeLessThan(1500);
});

test("an unusable URL answers false", async () => {
  expect(await postgresAnswers("not a url", 300)).toBe(false);
  expect(await redisAnswers("redis://127.0.0.1:notaport", 300)).toBe(false);
});
