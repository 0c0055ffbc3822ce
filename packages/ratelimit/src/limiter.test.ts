// Proves the limiter's groups over real Redis: the models and balance IP windows block
// each other, tiers and key windows apply as configured, Retry-After is whole seconds and
// never 0 when refused, two processes share one window, and a dead Redis is reported.
import { describe, expect, test } from "bun:test";
import { connectRedis } from "@gw/store";
import { createTestStore } from "@gw/store/testing";
import { createLimiter, LimiterUnavailableError } from "./limiter.ts";
import type { LimitPolicy } from "./policy.ts";

const store = await createTestStore();

const POLICY: LimitPolicy = {
  models: { limit: 3, windowMs: 60_000 },
  balance: { limit: 2, windowMs: 10_000 },
  blockMs: 30_000,
  critical: { limit: 4, windowMs: 60_000 },
  general: null,
  model: { limit: 2, windowMs: 60_000 },
};

let prefixes = 0;
function limiter(policy: LimitPolicy = POLICY) {
  return createLimiter({ redis: store.redis, prefix: `${store.prefix}:${++prefixes}`, policy });
}

describe("IP groups", () => {
  test("the models window admits its limit, then refusing it blocks balance too", async () => {
    const l = limiter();
    const t = 1_000_000_000;
    const admitted = [];
    for (let i = 0; i < 3; i++)
      admitted.push(await l.checkIp({ ip: "10.0.0.1", group: "models", nowMs: t + i }));
    expect(admitted.map((r) => [r?.success, r?.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
    ]);
    expect(admitted[0]).toMatchObject({
      window: "models",
      limit: 3,
      resetMs: t + 60_000,
      retryAfterS: 0,
    });

    const refused = await l.checkIp({ ip: "10.0.0.1", group: "models", nowMs: t + 10 });
    // Blocked for 30 s, but the window itself has room only at t + 60 s: the later wins.
    expect(refused).toMatchObject({
      success: false,
      refusedBy: "models",
      remaining: 0,
      resetMs: t + 60_000,
      retryAfterS: 60,
      refusedWindow: { limit: 3, windowMs: 60_000 },
    });
    const balance = await l.checkIp({ ip: "10.0.0.1", group: "balance", nowMs: t + 20 });
    expect(balance).toMatchObject({
      success: false,
      window: "balance",
      limit: 2,
      refusedBy: "block",
      retryAfterS: 30,
      resetMs: t + 10 + 30_000,
    });
    // Another IP is untouched, and balance reopens when the block ends.
    expect((await l.checkIp({ ip: "10.0.0.2", group: "balance", nowMs: t + 20 }))?.success).toBe(
      true,
    );
    expect(
      (await l.checkIp({ ip: "10.0.0.1", group: "balance", nowMs: t + 30_009 }))?.success,
    ).toBe(false);
    expect(
      (await l.checkIp({ ip: "10.0.0.1", group: "balance", nowMs: t + 30_010 }))?.success,
    ).toBe(true);
  });

  test("Retry-After is the ceiling in whole seconds and at least 1", async () => {
    const l = limiter({ ...POLICY, blockMs: 0, balance: { limit: 1, windowMs: 2_001 } });
    const t = 2_000_000_000;
    await l.checkIp({ ip: "::1", group: "balance", nowMs: t });
    const at = async (ms: number) =>
      (await l.checkIp({ ip: "::1", group: "balance", nowMs: t + ms }))?.retryAfterS;
    // Admission at t + 2001: 2001 ms away is 3 s, 1001 ms is 2 s, 1000 ms is 1 s, 1 ms is 1 s.
    expect([await at(0), await at(1000), await at(1001), await at(2000)]).toEqual([3, 2, 1, 1]);
    expect(await at(2001)).toBe(0);
  });

  test("a tier shares the round trip: refused by the tier, the group window keeps its room", async () => {
    const l = limiter({
      ...POLICY,
      balance: { limit: 100, windowMs: 60_000 },
      critical: { limit: 1, windowMs: 5_000 },
    });
    const t = 3_000_000_000;
    await l.checkIp({ ip: "10.1.1.1", group: "balance", tier: "critical", nowMs: t });
    const refused = await l.checkIp({
      ip: "10.1.1.1",
      group: "balance",
      tier: "critical",
      nowMs: t + 1,
    });
    expect(refused).toMatchObject({
      success: false,
      window: "balance",
      refusedBy: "critical",
      retryAfterS: 5,
    });
    // A tier refusal never blocks, so the models group of this IP is still open.
    expect((await l.checkIp({ ip: "10.1.1.1", group: "models", nowMs: t + 2 }))?.success).toBe(
      true,
    );
  });

  test("a tier alone, and null when every window asked for is off", async () => {
    const l = limiter({ ...POLICY, models: null });
    const only = await l.checkIp({ ip: "10.2.2.2", tier: "critical" });
    expect(only).toMatchObject({ success: true, window: "critical", limit: 4, remaining: 3 });
    expect(await l.checkIp({ ip: "10.2.2.2", tier: "general" })).toBeNull();
    expect(await l.checkIp({ ip: "10.2.2.2", group: "models" })).toBeNull();
  });
});

describe("key windows", () => {
  test("rpm_limit counts every call of the key over a minute; 0 means none", async () => {
    const l = limiter();
    const t = 4_000_000_000;
    const key = { keyId: 7n, userId: 1n, rpmLimit: 2 };
    expect((await l.checkKey({ ...key, nowMs: t }))?.success).toBe(true);
    expect((await l.checkKey({ ...key, nowMs: t + 1 }))?.success).toBe(true);
    expect(await l.checkKey({ ...key, nowMs: t + 2 })).toMatchObject({
      success: false,
      window: "key_rpm",
      refusedBy: "key_rpm",
      retryAfterS: 60,
    });
    expect(await l.checkKey({ ...key, rpmLimit: 0, nowMs: t + 3 })).toBeNull();
    expect((await l.checkKey({ ...key, nowMs: t + 60_000 }))?.success).toBe(true);
  });

  test("the model window is per key, model and user", async () => {
    const l = limiter();
    const t = 5_000_000_000;
    const call = (keyId: bigint, model: string) =>
      l.checkKey({ keyId, userId: 1n, rpmLimit: 0, model, nowMs: t });
    await call(8n, "flare");
    await call(8n, "flare");
    expect(await call(8n, "flare")).toMatchObject({ success: false, refusedBy: "model" });
    expect((await call(8n, "sunburst"))?.success).toBe(true);
    expect((await call(9n, "flare"))?.success).toBe(true);
    expect((await call(8n, "x".repeat(10_000)))?.success).toBe(true);
  });
});

test("two api processes (two connections) share one window and admit exactly its limit", async () => {
  const policy = { ...POLICY, models: { limit: 50, windowMs: 60_000 } };
  const prefix = `${store.prefix}:shared`;
  const second = connectRedis(store.redisUrl);
  try {
    const a = createLimiter({ redis: store.redis, prefix, policy });
    const b = createLimiter({ redis: second, prefix, policy });
    const nowMs = 6_000_000_000;
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        (i % 2 === 0 ? a : b).checkIp({ ip: "10.9.9.9", group: "models", nowMs: nowMs + (i % 7) }),
      ),
    );
    expect(results.filter((r) => r?.success)).toHaveLength(50);
    expect(results.filter((r) => r?.refusedBy === "block")).not.toHaveLength(0);
  } finally {
    second.disconnect();
  }
});

describe("Redis unavailable", () => {
  test("a closed port is reported as LimiterUnavailableError", async () => {
    const dead = connectRedis("redis://127.0.0.1:1");
    dead.on("error", () => {});
    try {
      const l = createLimiter({ redis: dead, prefix: "dead", policy: POLICY, timeoutMs: 10_000 });
      await expect(l.checkIp({ ip: "10.0.0.1", group: "models" })).rejects.toBeInstanceOf(
        LimiterUnavailableError,
      );
      // No window asked for means no Redis call, so nothing to fail.
      expect(await l.checkKey({ keyId: 1n, userId: 1n, rpmLimit: 0 })).toBeNull();
    } finally {
      dead.disconnect();
    }
  });

  test("a server that never answers is cut off by the timeout", async () => {
    const silent = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: { data() {} },
    });
    const hung = connectRedis(`redis://127.0.0.1:${silent.port}`);
    hung.on("error", () => {});
    try {
      const l = createLimiter({ redis: hung, prefix: "hung", policy: POLICY, timeoutMs: 200 });
      const error = await l.checkKey({ keyId: 1n, userId: 1n, rpmLimit: 5 }).catch((e) => e);
      expect(error).toBeInstanceOf(LimiterUnavailableError);
      expect(String(error.message)).toContain("200 ms");
    } finally {
      hung.disconnect();
      silent.stop(true);
    }
  });
});
