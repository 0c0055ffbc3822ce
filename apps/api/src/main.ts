import { connectPostgres, connectRedis, describeBackends, guardProcess, migrate } from "@gw/store";
import { CatalogError } from "@gw/tariffs";
import { errorFields, loggerFromEnv } from "@gw/telemetry";
import { createApp } from "./app.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { listenOptions } from "./server.ts";
import { drain } from "./shutdown.ts";

const logger = loggerFromEnv("api");

/** Starts one api process: configuration, migrations, then the HTTP server. */
async function main(): Promise<void> {
  guardProcess({ name: "[api]", log: (line) => logger.error(line.replace(/^\[api\] /, "")) });
  const config = loadConfig();
  const sql = connectPostgres(config.databaseUrl, {
    max: Number(process.env.PG_POOL_MAX ?? 10),
    ...(config.databaseSchema ? { schema: config.databaseSchema } : {}),
  });
  const redis = connectRedis(config.redisUrl, { clusterNodes: config.redisClusterNodes });
  logger.info(describeBackends(config.databaseUrl, config.redisUrl));
  if (config.production && !config.publicBaseUrl)
    logger.warn(
      `PUBLIC_BASE_URL is not set; result links point at http://localhost:${config.port}` +
        `${config.publicHosts.length > 0 ? ` unless the client called ${config.publicHosts.join(", ")}` : ""}.` +
        " Set PUBLIC_BASE_URL to the address clients use.",
    );
  await migrate(sql);
  const { app, closures, waiter, context } = await createApp({ config, sql, redis, logger });
  app.listen(listenOptions(config));
  logger.info(
    { port: app.server?.port },
    `listening on http://localhost:${app.server?.port} (docs at /swagger, health at /healthz and /readyz, metrics at /metrics)`,
  );
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const began = performance.now();
    context.lifecycle.draining = true;
    if (app.server)
      await drain({
        server: app.server,
        waiter,
        graceMs: config.shutdownGraceMs,
        log: (line) => logger.info({ signal }, line.replace(/^\[api\] /, "")),
      });
    closures.stop();
    waiter.stop();
    await app.stop(true);
    redis.disconnect();
    await sql.end({ timeout: 5 });
    logger.info({ ms: Math.round(performance.now() - began) }, "stopped");
    logger.flush();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((error) => {
  const what =
    error instanceof ConfigError || error instanceof CatalogError
      ? `configuration error: ${error.message}`
      : "failed to start";
  logger.fatal(errorFields(error), what);
  logger.flush();
  process.exit(1);
});
