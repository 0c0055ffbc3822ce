/**
 * A second api process for the rate-limit tests: configured by the environment like
 * main.ts (DATABASE_URL with `?search_path=<test schema>`, REDIS_PREFIX, RATE_LIMIT_*),
 * without migrating, on a random port. Prints one JSON line `{"url"}` once it serves,
 * and ends when the test that started it closes its stdin (see startChildServer).
 */

import { exitWithParent } from "@gw/benchkit";
import { connectPostgres, connectRedis } from "@gw/store";
import { createApp } from "../app.ts";
import { loadConfig } from "../config.ts";

const config = loadConfig();
const sql = connectPostgres(config.databaseUrl, { max: 4 });
const redis = connectRedis(config.redisUrl);
const { app, closures } = await createApp({ config, sql, redis });
app.listen({ port: 0, hostname: "127.0.0.1" });

let stopping = false;
async function shutdown(): Promise<void> {
  if (stopping) return;
  stopping = true;
  closures.stop();
  await app.stop(true);
  redis.disconnect();
  await sql.end({ timeout: 5 });
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown());
exitWithParent(() => void shutdown());

console.log(JSON.stringify({ url: `http://127.0.0.1:${app.server!.port}` }));
