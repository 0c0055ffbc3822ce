import { connectPostgres, connectRedis, describeBackends, migrate } from "@gw/store";
import { CatalogError } from "@gw/tariffs";
import { createApp } from "./app.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { serverBodyCap } from "./plugins/body-limit.ts";
import { EDIT_MAX_BODY_BYTES } from "./routes/images/multipart.ts";

/** Starts one api process: configuration, migrations, then the HTTP server. */
async function main(): Promise<void> {
  const config = loadConfig();
  const sql = connectPostgres(config.databaseUrl, { max: Number(process.env.PG_POOL_MAX ?? 10) });
  const redis = connectRedis(config.redisUrl, { clusterNodes: config.redisClusterNodes });
  console.log(`[api] ${describeBackends(config.databaseUrl, config.redisUrl)}`);
  await migrate(sql);
  const { app, closures, waiter } = await createApp({ config, sql, redis });
  app.listen({
    port: config.port,
    maxRequestBodySize: serverBodyCap(config.maxJsonBodyBytes, EDIT_MAX_BODY_BYTES),
  });
  console.log(`[api] listening on http://localhost:${app.server?.port} (docs at /swagger)`);
  const shutdown = async () => {
    closures.stop();
    waiter.stop();
    await app.stop();
    redis.disconnect();
    await sql.end({ timeout: 5 });
    process.exit(0);
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

main().catch((error) => {
  if (error instanceof ConfigError || error instanceof CatalogError) {
    console.error(`[api] configuration error: ${error.message}`);
  } else {
    console.error("[api] failed to start:", error instanceof Error ? error.message : error);
  }
  process.exit(1);
});
