import { afterAll } from "bun:test";
import { createTestStore, type TestStore } from "@gw/store/testing";
import { createApp } from "./app.ts";
import { type ApiConfig, loadConfig } from "./config.ts";
import { wrapFetch } from "./observe/access.ts";
import { captureLogs, recordTestSecret } from "./observe/test-log.ts";
import { listenOptions } from "./server.ts";

export const ADMIN_TOKEN = "test-admin-token-0123456789";
recordTestSecret(ADMIN_TOKEN);

export interface TestApi {
  store: TestStore;
  url: string;
  config: ApiConfig;
  app: Awaited<ReturnType<typeof createApp>>;
  /** A call to the running server; `key` becomes `Authorization: Bearer <key>`. */
  call(method: string, path: string, options?: CallOptions): Promise<Response>;
  admin(method: string, path: string, body?: unknown): Promise<Response>;
  /** Every log line this api wrote (JSON), in order. */
  logs(): string[];
  /** A fresh account with a key, made through the admin API; returns the secret. */
  account(options?: {
    balanceUsd?: number;
    discount?: number;
    key?: Record<string, unknown>;
  }): Promise<Account>;
  stop(): Promise<void>;
}

export interface CallOptions {
  key?: string;
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
}

export interface Account {
  userId: string;
  keyId: string;
  secret: string;
}

/**
 * A real api on a random port over this file's own schema and Redis prefix.
 * `env` overrides configuration as an operator would through the environment.
 */
export async function startTestApi(
  env: Record<string, string> = {},
  store?: TestStore,
): Promise<TestApi> {
  const ownStore = store ?? (await createTestStore());
  // Tests call 127.0.0.1 on a random port: listed, so result links point where they called.
  const config = loadConfig({
    ADMIN_TOKEN,
    PUBLIC_HOSTS: "127.0.0.1",
    ...env,
    REDIS_PREFIX: ownStore.prefix,
  });
  const capture = captureLogs("api");
  const built = await createApp({
    config,
    sql: ownStore.sql,
    redis: ownStore.redis,
    logger: capture.logger,
  });
  recordKeysMade(built.app);
  built.app.listen({ ...listenOptions({ ...config, port: 0 }), hostname: "127.0.0.1" });
  const url = `http://127.0.0.1:${built.app.server!.port}`;

  const call = (method: string, path: string, options: CallOptions = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    return fetch(`${url}${path}`, { method, headers, body });
  };
  const admin = (method: string, path: string, body?: unknown) =>
    call(method, path, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, body });

  const account: TestApi["account"] = async (options = {}) => {
    const user = await admin("POST", "/admin/users", {
      name: "test user",
      balance_usd: options.balanceUsd ?? 10,
      discount: options.discount ?? 0,
    });
    if (user.status !== 201) throw new Error(`account: ${user.status} ${await user.text()}`);
    const { id: userId } = (await user.json()) as { id: string };
    const key = await admin("POST", "/admin/keys", {
      user_id: userId,
      name: "test key",
      ...options.key,
    });
    if (key.status !== 201) throw new Error(`account key: ${key.status} ${await key.text()}`);
    const created = (await key.json()) as { id: string; key: string };
    return { userId, keyId: created.id, secret: created.key };
  };

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    built.closures.stop();
    built.waiter.stop();
    await built.app.stop(true);
  };
  afterAll(stop);
  return {
    store: ownStore,
    url,
    config,
    app: built,
    call,
    admin,
    logs: capture.lines,
    account,
    stop,
  };
}

/**
 * Records every key secret the admin API hands out in this test api, however the test
 * asked for it, so the runner can check that none of them reached a log.
 */
function recordKeysMade(app: Parameters<typeof wrapFetch>[0]) {
  wrapFetch(app, (inner) => async (request, server) => {
    const response = await inner(request, server);
    if (request.method === "POST" && response.status === 201 && /\/admin\/keys/.test(request.url)) {
      const body = (await response
        .clone()
        .json()
        .catch(() => null)) as { key?: unknown } | null;
      if (typeof body?.key === "string") recordTestSecret(body.key);
    }
    return response;
  });
}
