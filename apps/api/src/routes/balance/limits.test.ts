// Proves the rate limits wired on the balance, key budget and legacy billing routes:
// windows, X-RateLimit-* and Retry-After on 200 and 429, the critical and general tiers,
// key rpm_limit, X-Forwarded-For only from trusted proxies, and two apis sharing a window.
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { startChildServer, stringField } from "@gw/benchkit";
import { startTestApi, type TestApi } from "../../testing.ts";

const LIMITED = {
  TRUSTED_PROXIES: "loopback",
  RATE_LIMIT_BALANCE: "3/60s",
  RATE_LIMIT_IP_BLOCK: "off",
  RATE_LIMIT_CRITICAL: "5/60s",
  RATE_LIMIT_GENERAL: "2/60s",
};
const api = await startTestApi(LIMITED);

let ips = 0;
const nextIp = () => `203.0.113.${++ips}`;
const get = (target: TestApi, path: string, ip: string, key?: string) =>
  target.call("GET", path, { key, headers: { "x-forwarded-for": ip } });

function rateHeaders(response: Response) {
  return {
    limit: response.headers.get("x-ratelimit-limit"),
    remaining: response.headers.get("x-ratelimit-remaining"),
    reset: Number(response.headers.get("x-ratelimit-reset")),
  };
}

describe("GET /v1/balance", () => {
  test("its window: headers on every answer, then 429 with Retry-After and the error shape", async () => {
    const { secret } = await api.account();
    const ip = nextIp();
    const nowS = Date.now() / 1000;
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await get(api, "/v1/balance", ip, secret));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((r) => rateHeaders(r).remaining)).toEqual(["2", "1", "0", "0"]);
    for (const answer of answers) {
      const { limit, reset } = rateHeaders(answer);
      expect(limit).toBe("3");
      // Unix seconds, about a window ahead (generous bounds for slow machines).
      expect(Number.isInteger(reset)).toBe(true);
      expect(reset).toBeGreaterThan(nowS + 30);
      expect(reset).toBeLessThanOrEqual(Math.ceil(nowS) + 61 + 30);
    }
    const refused = answers[3]!;
    expect(refused.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(await refused.json()).toEqual({
      error: {
        message: expect.stringContaining("retry after"),
        type: "rate_limit_error",
        code: "rate_limited",
      },
    });
  });

  test("a key's rpm_limit counts its ordinary calls, not its read-only ones", async () => {
    const { secret } = await api.account({ key: { rpm_limit: 1 } });
    expect((await get(api, "/v1/balance", nextIp(), secret)).status).toBe(200);
    const refused = await get(api, "/v1/balance", nextIp(), secret);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await get(api, "/api/usage/token/", nextIp(), secret)).status).toBe(200);
    // Another key of another account is not affected.
    const other = await api.account({ key: { rpm_limit: 1 } });
    expect((await get(api, "/v1/balance", nextIp(), other.secret)).status).toBe(200);
  });
});

describe("IP tiers", () => {
  test("critical is one window over balance and key budget, without X-RateLimit headers on the budget", async () => {
    const { secret } = await api.account();
    const ip = nextIp();
    const statuses = [];
    for (const path of ["/api/usage/token/", "/api/usage/token/", "/v1/balance", "/v1/balance"]) {
      statuses.push((await get(api, path, ip, secret)).status);
    }
    const fifth = await get(api, "/api/usage/token/", ip, secret);
    statuses.push(fifth.status);
    const sixth = await get(api, "/api/usage/token/", ip, secret);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get("x-ratelimit-limit")).toBeNull();
    expect(Number(sixth.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await get(api, "/v1/balance", ip, secret)).status).toBe(429);
  });

  test("general covers the four legacy billing calls together", async () => {
    const { secret } = await api.account();
    const ip = nextIp();
    expect((await get(api, "/v1/dashboard/billing/subscription", ip, secret)).status).toBe(200);
    expect((await get(api, "/dashboard/billing/usage", ip, secret)).status).toBe(200);
    expect((await get(api, "/v1/dashboard/billing/usage", ip, secret)).status).toBe(429);
    expect((await get(api, "/dashboard/billing/subscription", ip, secret)).status).toBe(429);
  });

  test("by default both tiers are off: legacy billing and the key budget are not IP-limited", async () => {
    const plain = await startTestApi({ TRUSTED_PROXIES: "loopback" });
    const { secret } = await plain.account();
    const ip = nextIp();
    for (let i = 0; i < 8; i++) {
      expect((await get(plain, "/dashboard/billing/usage", ip, secret)).status).toBe(200);
      expect((await get(plain, "/api/usage/token/", ip, secret)).status).toBe(200);
    }
  });
});

test("X-Forwarded-For names the client only when the peer is a trusted proxy", async () => {
  const direct = await startTestApi({ RATE_LIMIT_BALANCE: "2/60s", RATE_LIMIT_IP_BLOCK: "off" });
  const { secret } = await direct.account();
  // Untrusted peer: three different claimed addresses are all 127.0.0.1 to the limiter.
  const claimed = ["192.0.2.1", "192.0.2.2", "192.0.2.3"];
  const statuses = [];
  for (const ip of claimed) statuses.push((await get(direct, "/v1/balance", ip, secret)).status);
  expect(statuses).toEqual([200, 200, 429]);
  // Trusted peer (this file's api): each claimed address has its own window.
  const { secret: other } = await api.account();
  for (const ip of claimed) expect((await get(api, "/v1/balance", ip, other)).status).toBe(200);
});

test("IPv6 clients are limited per /64 network", async () => {
  const { secret } = await api.account();
  const statuses = [];
  for (const ip of [
    "2001:db8:1:2::1",
    "2001:db8:1:2::2",
    "2001:db8:1:2:ffff::9",
    "2001:db8:1:2::3",
  ]) {
    statuses.push((await get(api, "/v1/balance", ip, secret)).status);
  }
  expect(statuses).toEqual([200, 200, 200, 429]);
  expect((await get(api, "/v1/balance", "2001:db8:1:3::1", secret)).status).toBe(200);
  // An IPv4-mapped IPv6 address is the IPv4 client.
  const v4 = nextIp();
  for (let i = 0; i < 3; i++) await get(api, "/v1/balance", v4, secret);
  expect((await get(api, "/v1/balance", `::ffff:${v4}`, secret)).status).toBe(429);
});

/** The test schema in the URL, so the second process resolves tables in it. */
function withSearchPath(databaseUrl: string, schema: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.set("search_path", schema);
  return url.toString();
}

test("two api processes over one Redis share one window and admit exactly its limit", async () => {
  const env = { ...LIMITED, RATE_LIMIT_BALANCE: "10/60s", RATE_LIMIT_CRITICAL: "off" };
  const first = await startTestApi(env);
  // The second api is another process over the same schema and Redis prefix.
  const second = await startChildServer(
    join(import.meta.dir, "../../plugins/rate-limit.second-api.ts"),
    (value) => ({ url: stringField(value, "url") }),
    {
      env: {
        ...env,
        DATABASE_URL: withSearchPath(first.store.databaseUrl, first.store.schema),
        REDIS_URL: first.store.redisUrl,
        REDIS_PREFIX: first.store.prefix,
      },
    },
  );
  afterAll(() => second.stop());
  const { secret } = await first.account();
  const ip = nextIp();
  const call = (i: number) =>
    i % 2 === 0
      ? get(first, "/v1/balance", ip, secret)
      : fetch(`${second.info.url}/v1/balance`, {
          headers: { authorization: `Bearer ${secret}`, "x-forwarded-for": ip },
        });
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => call(i)));
  const statuses = answers.map((r) => r.status);
  expect(statuses.filter((s) => s === 200)).toHaveLength(10);
  expect(statuses.filter((s) => s === 429)).toHaveLength(30);
  // The ten admissions, from both processes, counted down one window.
  const remaining = answers.filter((r) => r.status === 200).map((r) => rateHeaders(r).remaining);
  expect(remaining.sort()).toEqual(["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]);
});
