// Liveness and readiness (issue 14) on a real api whose Postgres and Redis connections go
// through relays this test cuts: /readyz turns 503 naming the backend that is down, within
// its probe timeout, while /healthz stays 200; both recover when the backend is back.
import { afterAll, expect, test } from "bun:test";
import { connectPostgres, connectRedis } from "@gw/store";
import { createTestStore, startTcpProxy } from "@gw/store/testing";
import { createApp } from "../../app.ts";
import { loadConfig } from "../../config.ts";
import { listenOptions } from "../../server.ts";
import { ADMIN_TOKEN } from "../../testing.ts";

const store = await createTestStore();
const pgRelay = startTcpProxy(Number(new URL(store.databaseUrl).port || 5432));
const redisRelay = startTcpProxy(Number(new URL(store.redisUrl).port || 6379));
const viaRelay = new URL(store.databaseUrl);
viaRelay.hostname = "127.0.0.1";
viaRelay.port = String(pgRelay.port);
const sql = connectPostgres(viaRelay.toString(), { max: 4, schema: store.schema });
const redis = connectRedis(`redis://127.0.0.1:${redisRelay.port}`);
const config = loadConfig({ ADMIN_TOKEN, REDIS_PREFIX: store.prefix, PUBLIC_HOSTS: "127.0.0.1" });
const { app, closures, waiter } = await createApp({ config, sql, redis });
app.listen({ ...listenOptions({ ...config, port: 0 }), hostname: "127.0.0.1" });
const url = `http://127.0.0.1:${app.server!.port}`;
afterAll(async () => {
  closures.stop();
  waiter.stop();
  await app.stop(true);
  redis.disconnect();
  await sql.end({ timeout: 1 });
  pgRelay.stop();
  redisRelay.stop();
});

async function readiness() {
  const began = performance.now();
  const response = await fetch(`${url}/readyz`);
  const body = (await response.json()) as { status: string; checks: Record<string, string> };
  return { status: response.status, body, ms: performance.now() - began };
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await Bun.sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

test("ready with every backend up: Postgres, Redis, migrations, catalog", async () => {
  const ready = await readiness();
  expect(ready.status).toBe(200);
  expect(ready.body).toEqual({
    status: "ready",
    checks: { postgres: "ok", redis: "ok", migrations: "ok", catalog: "ok", draining: "ok" },
  });
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
});

test("Postgres cut: unready within the probe's timeout, alive all along, ready again once restored", async () => {
  pgRelay.cut();
  const down = await readiness();
  expect(down.status).toBe(503);
  expect(down.body.status).toBe("unready");
  expect(down.body.checks.postgres).not.toBe("ok");
  expect(down.body.checks.redis).toBe("ok");
  expect(down.ms).toBeLessThan(3_000);
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  pgRelay.restore();
  await until("ready after Postgres came back", async () => (await readiness()).status === 200);
});

test("Redis cut: unready naming Redis, ready again once restored", async () => {
  redisRelay.cut();
  const down = await readiness();
  expect(down.status).toBe(503);
  expect(down.body.checks.redis).not.toBe("ok");
  expect(down.body.checks.postgres).toBe("ok");
  expect(down.ms).toBeLessThan(3_000);
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  redisRelay.restore();
  await until("ready after Redis came back", async () => (await readiness()).status === 200);
});
