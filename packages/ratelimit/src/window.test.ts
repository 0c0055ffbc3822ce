// Proves the sliding window admits exactly `limit` requests per window, also under
// concurrency, and frees capacity exactly when the oldest request leaves the window.
import { describe, expect, test } from "bun:test";
import { createTestStore } from "@gw/store/testing";
import { checkWindow } from "./window.ts";

const store = await createTestStore();
const key = (name: string) => `${store.prefix}:rl:{${name}}`;

describe("sliding window", () => {
  test("admits the limit, refuses the next, and says when to come back", async () => {
    const base = 1_000_000;
    const results = [];
    for (let i = 0; i < 4; i++) {
      results.push(
        await checkWindow({
          redis: store.redis,
          key: key("a"),
          limit: 3,
          windowMs: 1000,
          nowMs: base + i * 10,
        }),
      );
    }
    expect(results.map((r) => r.success)).toEqual([true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([2, 1, 0, 0]);
    expect(results[3]!.resetMs).toBe(base + 1000);
  });

  test("capacity returns exactly when the oldest request leaves the window", async () => {
    const base = 2_000_000;
    for (let i = 0; i < 2; i++) {
      await checkWindow({
        redis: store.redis,
        key: key("b"),
        limit: 2,
        windowMs: 1000,
        nowMs: base + i * 100,
      });
    }
    const justBefore = await checkWindow({
      redis: store.redis,
      key: key("b"),
      limit: 2,
      windowMs: 1000,
      nowMs: base + 999,
    });
    expect(justBefore.success).toBe(false);
    const atBoundary = await checkWindow({
      redis: store.redis,
      key: key("b"),
      limit: 2,
      windowMs: 1000,
      nowMs: base + 1000,
    });
    expect(atBoundary.success).toBe(true);
    const next = await checkWindow({
      redis: store.redis,
      key: key("b"),
      limit: 2,
      windowMs: 1000,
      nowMs: base + 1050,
    });
    expect(next.success).toBe(false);
  });

  test("500 concurrent requests in one window admit exactly the limit", async () => {
    const nowMs = 3_000_000;
    const results = await Promise.all(
      Array.from({ length: 500 }, () =>
        checkWindow({ redis: store.redis, key: key("c"), limit: 120, windowMs: 60_000, nowMs }),
      ),
    );
    expect(results.filter((r) => r.success)).toHaveLength(120);
  });
});
