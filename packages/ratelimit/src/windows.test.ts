// Proves checkWindows-3.lua: exact sliding logs at their boundaries, all-or-nothing
// recording over two windows, the block it sets and honours, and when it says to come back.
import { describe, expect, test } from "bun:test";
import { connectRedis } from "@gw/store";
import { createTestStore } from "@gw/store/testing";
import { checkWindows, type WindowSpec } from "./windows.ts";

const store = await createTestStore();
let subjects = 0;
/** A fresh subject per test, its keys sharing one hash tag as the script requires. */
function subject() {
  const tag = `${store.prefix}:rl:{s${++subjects}}`;
  const window = (name: string, limit: number, windowMs: number): WindowSpec => ({
    key: `${tag}:${name}`,
    limit,
    windowMs,
  });
  return { blockKey: `${tag}:block`, window };
}

const check = (
  s: ReturnType<typeof subject>,
  first: WindowSpec | null,
  second: WindowSpec | null,
  nowMs: number,
  blockMs = 0,
) => checkWindows({ redis: store.redis, blockKey: s.blockKey, blockMs, first, second, nowMs });

describe("one window", () => {
  test("a request at exactly window end no longer counts; one a millisecond earlier does", async () => {
    const s = subject();
    const w = s.window("w", 2, 1000);
    const t = 10_000_000;
    expect((await check(s, w, null, t)).admitted).toBe(true);
    expect((await check(s, w, null, t + 400)).admitted).toBe(true);
    const full = await check(s, w, null, t + 999);
    expect(full).toMatchObject({ admitted: false, refusedBy: "first", retryAtMs: t + 1000 });
    expect(full.first).toEqual({ limit: 2, remaining: 0, resetMs: t + 1000 });
    expect((await check(s, w, null, t + 1000)).admitted).toBe(true);
    // Now the entries are t+400 and t+1000: full until t+1400 exactly.
    expect((await check(s, w, null, t + 1399)).admitted).toBe(false);
    expect((await check(s, w, null, t + 1400)).admitted).toBe(true);
  });

  test("refused requests are not recorded, so they do not push admission back", async () => {
    const s = subject();
    const w = s.window("w", 1, 1000);
    const t = 20_000_000;
    await check(s, w, null, t);
    for (let i = 1; i <= 5; i++)
      expect((await check(s, w, null, t + i * 100)).admitted).toBe(false);
    expect(await store.redis.zcard(w.key)).toBe(1);
    expect((await check(s, w, null, t + 1000)).admitted).toBe(true);
  });

  test("after the limit is lowered, admission waits for enough entries to leave", async () => {
    const s = subject();
    const t = 30_000_000;
    for (let i = 0; i < 4; i++) await check(s, s.window("w", 10, 1000), null, t + i * 100);
    // Four entries at t..t+300; with a limit of 2 only one may remain, so three must
    // leave: the third (t+200) leaves at t+1200.
    const lowered = await check(s, s.window("w", 2, 1000), null, t + 500);
    expect(lowered).toMatchObject({ admitted: false, retryAtMs: t + 1200 });
    expect((await check(s, s.window("w", 2, 1000), null, t + 1199)).admitted).toBe(false);
    expect((await check(s, s.window("w", 2, 1000), null, t + 1200)).admitted).toBe(true);
  });
});

describe("two windows", () => {
  test("a request refused by either window is recorded in neither", async () => {
    const s = subject();
    const wide = s.window("wide", 10, 60_000);
    const narrow = s.window("narrow", 1, 1000);
    const t = 40_000_000;
    expect((await check(s, wide, narrow, t)).admitted).toBe(true);
    const refused = await check(s, wide, narrow, t + 10);
    expect(refused).toMatchObject({ admitted: false, refusedBy: "second", retryAtMs: t + 1000 });
    expect(refused.first?.remaining).toBe(9);
    expect(await store.redis.zcard(wide.key)).toBe(1);
  });

  test("admission waits for the later of two full windows", async () => {
    const s = subject();
    const a = s.window("a", 1, 5000);
    const b = s.window("b", 1, 2000);
    const t = 50_000_000;
    await check(s, a, b, t);
    expect(await check(s, a, b, t + 1)).toMatchObject({ refusedBy: "first", retryAtMs: t + 5000 });
  });
});

describe("block", () => {
  test("a refusal by the first window blocks the subject for the block length", async () => {
    const s = subject();
    const w = s.window("w", 1, 1000);
    const t = 60_000_000;
    await check(s, w, null, t, 10_000);
    const refused = await check(s, w, null, t + 100, 10_000);
    expect(refused).toMatchObject({ refusedBy: "first", retryAtMs: t + 100 + 10_000 });
    // The window has room again at t+1000, but the block holds until t+10100.
    expect(await check(s, w, null, t + 5000, 10_000)).toMatchObject({
      refusedBy: "block",
      retryAtMs: t + 10_100,
    });
    expect((await check(s, w, null, t + 10_099, 10_000)).admitted).toBe(false);
    expect((await check(s, w, null, t + 10_100, 10_000)).admitted).toBe(true);
  });

  test("a block set through one window refuses another window of the same subject", async () => {
    const s = subject();
    const models = s.window("models", 1, 60_000);
    const balance = s.window("balance", 100, 60_000);
    const t = 70_000_000;
    await check(s, models, null, t, 30_000);
    await check(s, models, null, t + 1, 30_000);
    const other = await check(s, balance, null, t + 2, 30_000);
    expect(other).toMatchObject({ admitted: false, refusedBy: "block", retryAtMs: t + 30_001 });
    expect(other.first).toEqual({ limit: 100, remaining: 100, resetMs: t + 2 + 60_000 });
  });

  test("a refusal by the second window does not block, and blockMs 0 ignores a block", async () => {
    const s = subject();
    const first = s.window("first", 100, 60_000);
    const second = s.window("second", 1, 1000);
    const t = 80_000_000;
    await check(s, first, second, t, 30_000);
    await check(s, first, second, t + 1, 30_000);
    expect(await store.redis.exists(s.blockKey)).toBe(0);
    await store.redis.set(s.blockKey, String(t + 50_000), "PX", 60_000);
    expect((await check(s, first, null, t + 2, 0)).admitted).toBe(true);
    expect((await check(s, first, null, t + 3, 30_000)).refusedBy).toBe("block");
  });
});

test("500 requests at once from two connections admit exactly the limit", async () => {
  const s = subject();
  const w = s.window("w", 120, 60_000);
  const other = connectRedis(store.redisUrl);
  try {
    const nowMs = 90_000_000;
    const results = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        checkWindows({
          redis: i % 2 === 0 ? store.redis : other,
          blockKey: s.blockKey,
          blockMs: 0,
          first: w,
          second: null,
          nowMs,
        }),
      ),
    );
    expect(results.filter((r) => r.admitted)).toHaveLength(120);
    expect(await store.redis.zcard(w.key)).toBe(120);
  } finally {
    other.disconnect();
  }
});
