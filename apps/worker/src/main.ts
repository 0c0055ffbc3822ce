import { randomUUID } from "node:crypto";
import { connectPostgres, connectRedis, describeBackends, guardProcess, migrate } from "@gw/store";
import { loadWorkerConfig } from "./config.ts";
import { startWorker } from "./worker.ts";

/** Starts one worker process. Workers scale out: each takes work through Redis. */
async function main(): Promise<void> {
  guardProcess({ name: "[worker]" });
  const config = loadWorkerConfig();
  const sql = connectPostgres(config.databaseUrl, {
    max: config.poolMax,
    ...(config.databaseSchema ? { schema: config.databaseSchema } : {}),
  });
  const redis = connectRedis(config.redisUrl, { clusterNodes: config.redisClusterNodes });
  console.log(`[worker] ${describeBackends(config.databaseUrl, config.redisUrl)}`);
  await migrate(sql);
  const workerId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  const worker = await startWorker({ config, sql, redis, workerId });
  console.log(
    `[worker] ${workerId} started: ${config.concurrency} tasks at once, providers ${worker.providers.join(", ")}`,
  );
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await worker.stop();
    redis.disconnect();
    await sql.end({ timeout: 5 });
    process.exit(0);
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

main().catch((error) => {
  console.error("[worker] failed to start:", error instanceof Error ? error.message : error);
  process.exit(1);
});
