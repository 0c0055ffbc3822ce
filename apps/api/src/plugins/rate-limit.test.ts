// Proves the `limit` macro on real servers and Redis: the models window blocks balance too,
// IP limits run before auth, the model window and keyRpm exemption, that a refused call
// changes nothing, and which groups fail open or closed when Redis is unreachable.
import { afterAll, describe, expect, test } from "bun:test";
import { createLimiter } from "@gw/ratelimit";
import { connectRedis } from "@gw/store";
import { Elysia } from "elysia";
import { startTestApi } from "../testing.ts";
import { authPlugin } from "./auth.ts";
import { errorPlugin } from "./errors.ts";
import { keyRpmGuard, rateLimitPlugin } from "./rate-limit.ts";

// Loopback is the trusted proxy, so each test speaks for its own client IP.
const api = await startTestApi({
  TRUSTED_PROXIES: "loopback",
  RATE_LIMIT_MODELS: "3/60s",
  RATE_LIMIT_BALANCE: "50/60s",
  RATE_LIMIT_IP_BLOCK: "120s",
  RATE_LIMIT_MODEL: "2/60s",
});

let paidCalls = 0;
/**
 * Test-only routes declaring the macro as route modules do, over the api's own limiter
 * (same Redis prefix), so their windows and blocks are the api's.
 */
const { auth, rateLimit, ledger } = api.app.context;
const side = new Elysia()
  .use(errorPlugin)
  .use(auth)
  .use(rateLimit)
  .get("/models", () => ({ object: "list" }), {
    auth: { mode: "ordinary" },
    limit: { ip: "models" },
  })
  .get("/open/models", () => ({ object: "list" }), { auth: { mode: "ordinary" } })
  .get("/styled", () => ({ object: "list" }), {
    auth: { mode: "ordinary" },
    limit: { ip: "models", model: (request) => request.headers.has("anthropic-version") },
  })
  .get("/counted/:model", ({ params }) => ({ model: params.model }), {
    auth: { mode: "ordinary" },
    limit: { model: true },
  })
  .post(
    "/paid",
    async ({ principal, body }) => {
      paidCalls++;
      const holdId = `paid-${paidCalls}-${Math.random()}`;
      await ledger.hold({
        holdId,
        userId: principal.userId,
        keyId: principal.keyId,
        amountQuota: 5_000n,
      });
      await ledger.post(holdId, 5_000n);
      return { model: (body as { model: string }).model };
    },
    { auth: { mode: "ordinary" }, limit: { model: true, failClosed: true } },
  )
  .get("/videos/:id", ({ params }) => ({ id: params.id }), {
    auth: { mode: "ordinary" },
    limit: { keyRpm: false },
  })
  .listen({ port: 0, hostname: "127.0.0.1" });
afterAll(() => side.stop(true));
const sideUrl = `http://127.0.0.1:${side.server!.port}`;

let ips = 0;
const nextIp = () => `198.51.100.${++ips}`;

function sideCall(path: string, ip: string, key?: string, body?: unknown) {
  const headers: Record<string, string> = { "x-forwarded-for": ip };
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  return fetch(`${sideUrl}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const balance = (ip: string, key: string) =>
  api.call("GET", "/v1/balance", { key, headers: { "x-forwarded-for": ip } });

describe("models group and the shared block", () => {
  test("exceeding the models window blocks the IP on balance too, with Retry-After", async () => {
    const { secret } = await api.account();
    const ip = nextIp();
    for (let i = 0; i < 3; i++) expect((await sideCall("/models", ip, secret)).status).toBe(200);
    const refused = await sideCall("/models", ip, secret);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    const blocked = await balance(ip, secret);
    expect(blocked.status).toBe(429);
    const retryAfter = blocked.headers.get("retry-after")!;
    expect(retryAfter).toMatch(/^\d+$/);
    // The 120 s block outlasts the 60 s window; a generous bound keeps slow machines green.
    expect(Number(retryAfter)).toBeGreaterThan(60);
    expect(Number(retryAfter)).toBeLessThanOrEqual(120);
    expect(blocked.headers.get("x-ratelimit-limit")).toBe("50");
    expect(blocked.headers.get("x-ratelimit-remaining")).toBe("0");
    // Another IP, and a route without the models protection, are not blocked.
    expect((await balance(nextIp(), secret)).status).toBe(200);
    expect((await sideCall("/open/models", ip, secret)).status).toBe(200);
  });

  test("the IP check runs before auth: a blocked IP gets 429 even with a bad key", async () => {
    const ip = nextIp();
    // Unauthenticated calls count too; their 401s already carry the window headers.
    const first = await sideCall("/models", ip, "sk-not-a-key");
    expect(first.status).toBe(401);
    expect(first.headers.get("x-ratelimit-remaining")).toBe("2");
    for (let i = 0; i < 2; i++) await sideCall("/models", ip);
    const refused = await sideCall("/models", ip, "sk-not-a-key");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });
});

describe("model window and exemptions", () => {
  test("counts per key and model (from the path here; /paid reads the body)", async () => {
    const { secret } = await api.account();
    const ip = nextIp();
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await sideCall("/counted/flare", ip, secret)).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect((await sideCall("/counted/sunburst", ip, secret)).status).toBe(200);
    const other = await api.account();
    expect((await sideCall("/counted/flare", ip, other.secret)).status).toBe(200);
    const refused = await sideCall("/counted/flare", ip, secret);
    expect(await refused.text()).toContain("model flare");
  });

  test("a predicate applies the model window only to the requests it accepts", async () => {
    const { secret } = await api.account();
    const styled = (message: boolean) =>
      fetch(`${sideUrl}/styled`, {
        headers: {
          authorization: `Bearer ${secret}`,
          "x-forwarded-for": nextIp(),
          ...(message ? { "anthropic-version": "2023-06-01" } : {}),
        },
      });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await styled(true)).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect((await styled(false)).status).toBe(200);
    const refused = await styled(true);
    expect(await refused.text()).toContain("model *");
    // The IP window still applied: the refusal carries its headers.
    expect(refused.headers.get("x-ratelimit-limit")).toBe("3");
  });

  test("keyRpm: false exempts a route from the key's rpm_limit", async () => {
    const { secret } = await api.account({ key: { rpm_limit: 1 } });
    const ip = nextIp();
    expect((await sideCall("/videos/1", ip, secret)).status).toBe(200);
    expect((await sideCall("/videos/2", ip, secret)).status).toBe(200);
    expect((await balance(ip, secret)).status).toBe(200);
    expect((await balance(ip, secret)).status).toBe(429);
    expect((await sideCall("/videos/3", ip, secret)).status).toBe(200);
  });

  test("with the model window, rpm_limit is checked in the same round trip", async () => {
    const { secret } = await api.account({ key: { rpm_limit: 1 } });
    const ip = nextIp();
    expect((await sideCall("/counted/a", ip, secret)).status).toBe(200);
    const refused = await sideCall("/counted/b", ip, secret);
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain("1 requests per minute");
  });
});

test("a refused paid call runs nothing: no hold, no charge, no use of the key's budget", async () => {
  const account = await api.account({ balanceUsd: 1, key: { quota: 100_000 } });
  const ip = nextIp();
  for (let i = 0; i < 2; i++) {
    expect((await sideCall("/paid", ip, account.secret, { model: "flare" })).status).toBe(200);
  }
  const user = async () => (await api.admin("GET", `/admin/users/${account.userId}`)).json();
  const key = async () => (await api.admin("GET", `/admin/keys/${account.keyId}`)).json();
  const before = { user: await user(), key: await key(), calls: paidCalls };
  for (let i = 0; i < 5; i++) {
    expect((await sideCall("/paid", ip, account.secret, { model: "flare" })).status).toBe(429);
  }
  expect({ user: await user(), key: await key(), calls: paidCalls }).toEqual(before);
  expect(before.user).toMatchObject({ balance_usd: 0.98, total_spent_usd: 0.02 });
});

describe("Redis unreachable", () => {
  const dead = connectRedis("redis://127.0.0.1:1");
  dead.on("error", () => {});
  afterAll(() => dead.disconnect());
  const limiter = createLimiter({
    redis: dead,
    prefix: "dead",
    policy: api.config.rateLimits,
    timeoutMs: 300,
  });
  const app = new Elysia()
    .use(errorPlugin)
    .use(authPlugin(api.store.sql, [], keyRpmGuard(limiter)))
    .use(rateLimitPlugin(limiter, []))
    .get("/balance", () => ({ ok: true }), { limit: { ip: "balance", tier: "critical" } })
    .get("/keyed", () => ({ ok: true }), { auth: { mode: "ordinary" } })
    .get("/lists/:model", () => ({ ok: true }), {
      auth: { mode: "ordinary" },
      limit: { model: true },
    })
    .post("/paid", () => ({ ok: true }), { limit: { ip: "models", failClosed: true } })
    .listen({ port: 0, hostname: "127.0.0.1" });
  afterAll(() => app.stop(true));
  const url = `http://127.0.0.1:${app.server!.port}`;
  const get = (path: string, key?: string, method = "GET") =>
    fetch(`${url}${path}`, {
      method,
      headers: key ? { authorization: `Bearer ${key}` } : {},
    });

  test("IP groups and the model window fail open, without headers", async () => {
    const response = await get("/balance");
    expect(response.status).toBe(200);
    expect(response.headers.get("x-ratelimit-limit")).toBeNull();
    const { secret } = await api.account();
    expect((await get("/lists/flare", secret)).status).toBe(200);
    expect((await get("/keyed", secret)).status).toBe(200);
  });

  test("a key's rpm_limit and a failClosed route fail closed with 503", async () => {
    const { secret } = await api.account({ key: { rpm_limit: 100 } });
    for (const response of [
      await get("/keyed", secret),
      await get("/lists/flare", secret),
      await get("/paid", undefined, "POST"),
    ]) {
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("5");
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
        "unmetered",
      );
    }
  });
});
