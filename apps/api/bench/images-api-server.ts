/**
 * The real api for the images bench, in its own process, over the schema and Redis
 * prefix the bench created (DATABASE_SCHEMA, REDIS_PREFIX), because the bench's worker
 * processes must share them and the bench counts tasks and charges in them; the bench
 * drops them. Everything else is read from the environment as main.ts reads it
 * (ADMIN_TOKEN, STORAGE_DIR, RATE_LIMIT_*, PG_POOL_MAX, ...). Prints one JSON line
 * `{"url"}` once it serves; stops on SIGTERM/SIGINT or when the parent's pipe closes.
 */

import { exitWithParent } from "@gw/benchkit";
import { connectPostgres, connectRedis } from "@gw/store";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { listenOptions } from "../src/server.ts";

const schema = process.env.DATABASE_SCHEMA;
if (!schema) throw new Error("DATABASE_SCHEMA must name the bench's schema");
const config = loadConfig(process.env);
const sql = connectPostgres(config.databaseUrl, {
  schema,
  max: Number(process.env.PG_POOL_MAX ?? 10),
});
const redis = connectRedis(config.redisUrl);

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
  redis.disconnect();
  await sql.end({ timeout: 5 }).catch(() => {});
  process.exit(code);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
exitWithParent((reason) => void shutdown(reason));

try {
  const { app, closures, waiter } = await createApp({ config, sql, redis });
  stopServer = async () => {
    closures.stop();
    waiter.stop();
    await app.stop(true);
  };
  app.listen({ ...listenOptions({ ...config, port: 0 }), hostname: "127.0.0.1" });
  const port = app.server?.port;
  if (port === undefined) throw new Error("the api did not start listening");
  console.log(JSON.stringify({ url: `http://127.0.0.1:${port}` }));
} catch (error) {
  console.error("[bench api] failed to start:", error);
  await shutdown("start failure", 1);
}
