import { connectPostgres, connectRedis, describeBackends, guardProcess, migrate } from "@gw/store";
import { CatalogError } from "@gw/tariffs";
import { createApp } from "./app.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { listenOptions } from "./server.ts";
import { drain } from "./shutdown.ts";

/** Starts one api process: configuration, migrations, then the HTTP server. */
async function main(): Promise<void> {
  guardProcess({ name: "[api]" });
  const config = loadConfig();
  const sql = connectPostgres(config.databaseUrl, {
    max: Number(process.env.PG_POOL_MAX ?? 10),
    ...(config.databaseSchema ? { schema: config.databaseSchema } : {}),
  });
  const redis = connectRedis(config.redisUrl, { clusterNodes: config.redisClusterNodes });
  console.log(`[api] ${describeBackends(config.databaseUrl, config.redisUrl)}`);
  if (config.production && !config.publicBaseUrl)
    console.warn(
      `[api] WARNING: PUBLIC_BASE_URL is not set; result links point at http://localhost:${config.port}` +
        `${config.publicHosts.length > 0 ? ` unless the client called ${config.publicHosts.join(", ")}` : ""}.` +
        " Set PUBLIC_BASE_URL to the address clients use.",
    );
  await migrate(sql);
  const { app, closures, waiter } = await createApp({ config, sql, redis });
  app.listen(listenOptions(config));
  console.log(`[api] listening on http://localhost:${app.server?.port} (docs at /swagger)`);
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    if (app.server)
      await drain({
        server: app.server,
        waiter,
        graceMs: config.shutdownGraceMs,
        log: console.log,
      });
    closures.stop();
    waiter.stop();
    await app.stop(true);
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
