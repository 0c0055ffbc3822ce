/**
 * The real api for the balance bench, in its own process: a fresh schema and Redis
 * prefix, migrations, `createApp`, a listener on a random port, and one demo account
 * with a key made through the admin API. Prints one JSON line `{"url","key"}` once it
 * serves; on SIGTERM/SIGINT (or when the parent bench's pipe closes) it stops and
 * removes its schema and keys. The RATE_LIMIT_* variables configure its limits as they
 * would main.ts's; BENCH_KEY_RPM_LIMIT gives the demo key an rpm_limit (default 0).
 */

import { exitWithParent, openBenchStore, stringField } from "@gw/benchkit";
import { LIMIT_ENV } from "@gw/ratelimit";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { listenOptions } from "../src/server.ts";

const ADMIN_TOKEN = "bench-admin-token-0123456789";
/** The pool size main.ts uses by default. */
const POOL_MAX = 10;

/** The operator's rate-limit variables, passed through as main.ts would read them. */
function rateLimitEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { name } of Object.values(LIMIT_ENV)) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

const store = await openBenchStore({ poolMax: POOL_MAX });

let shuttingDown = false;
let stopServer: () => Promise<void> = async () => {};
async function shutdown(reason: string, code = 0): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  try {
    await stopServer();
  } catch (error) {
    console.error(`[bench api] stop after ${reason} failed:`, error);
  }
  try {
    await store.close();
  } catch (error) {
    console.error(`[bench api] cleanup of ${store.schema} failed:`, error);
    code = 1;
  }
  process.exit(code);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
exitWithParent((reason) => void shutdown(reason));

try {
  const config = loadConfig({
    ADMIN_TOKEN,
    DATABASE_URL: store.databaseUrl,
    REDIS_URL: store.redisUrl,
    REDIS_PREFIX: store.prefix,
    ...rateLimitEnv(),
  });
  const { app, closures, waiter } = await createApp({ config, sql: store.sql, redis: store.redis });
  stopServer = async () => {
    closures.stop();
    waiter.stop();
    await app.stop(true);
  };
  app.listen({ ...listenOptions({ ...config, port: 0 }), hostname: "127.0.0.1" });
  const port = app.server?.port;
  if (port === undefined) throw new Error("the api did not start listening");
  const url = `http://127.0.0.1:${port}`;

  const admin = async (path: string, body: unknown): Promise<unknown> => {
    const response = await fetch(`${url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) {
      throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
    }
    return response.json();
  };
  const user = await admin("/admin/users", { name: "bench user", balance_usd: 10, discount: 0 });
  const key = await admin("/admin/keys", {
    user_id: stringField(user, "id"),
    name: "bench key",
    rpm_limit: Number(process.env.BENCH_KEY_RPM_LIMIT ?? 0),
  });

  console.log(JSON.stringify({ url, key: stringField(key, "key") }));
} catch (error) {
  console.error("[bench api] failed to start:", error);
  await shutdown("start failure", 1);
}
