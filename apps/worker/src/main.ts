import { randomUUID } from "node:crypto";
import { connectPostgres, connectRedis, describeBackends, guardProcess, migrate } from "@gw/store";
import { errorFields, GatewayMetrics, loggerFromEnv } from "@gw/telemetry";
import { loadWorkerConfig } from "./config.ts";
import { startWorker } from "./worker.ts";

/** Starts one worker process. Workers scale out: each takes work through Redis. */
async function main(): Promise<void> {
  const logger = loggerFromEnv("worker");
  guardProcess({ name: "[worker]", log: (line) => logger.error(line.replace(/^\[worker\] /, "")) });
  const config = loadWorkerConfig();
  const sql = connectPostgres(config.databaseUrl, {
    max: config.poolMax,
    ...(config.databaseSchema ? { schema: config.databaseSchema } : {}),
  });
  const redis = connectRedis(config.redisUrl, { clusterNodes: config.redisClusterNodes });
  logger.info(describeBackends(config.databaseUrl, config.redisUrl));
  await migrate(sql);
  const workerId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  const worker = await startWorker({
    config,
    sql,
    redis,
    workerId,
    logger,
    metrics: new GatewayMetrics("worker"),
  });
  logger.info(
    { worker_id: workerId, probes: worker.probeUrl },
    `${workerId} started: ${config.concurrency} tasks at once, providers ${worker.providers.join(", ")}; metrics and health on ${worker.probeUrl}`,
  );
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const began = performance.now();
    logger.info(
      { signal, running: worker.running(), grace_ms: config.shutdownGraceMs },
      `stopping: no new jobs; ${worker.running()} running may take ${config.shutdownGraceMs} ms`,
    );
    await worker.stop();
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
  const logger = loggerFromEnv("worker");
  logger.fatal(errorFields(error), "failed to start");
  logger.flush();
  process.exit(1);
});
