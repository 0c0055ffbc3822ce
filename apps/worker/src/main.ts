import { randomUUID } from "node:crypto";
import { createLedger } from "@gw/ledger";
import { connectPostgres, connectRedis, describeBackends, migrate } from "@gw/store";
import { startMaintenance } from "./maintenance.ts";

const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres";
const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/** Starts one worker process. Workers scale out: each takes work through Redis. */
async function main(): Promise<void> {
  const env = process.env;
  if (env.NODE_ENV === "production" && (!env.DATABASE_URL || !env.REDIS_URL)) {
    throw new Error("NODE_ENV=production needs DATABASE_URL and REDIS_URL");
  }
  const prefix = env.REDIS_PREFIX || "gw";
  const sql = connectPostgres(env.DATABASE_URL || DEFAULT_DATABASE_URL, { max: 5 });
  const redis = connectRedis(env.REDIS_URL || DEFAULT_REDIS_URL, {
    clusterNodes: env.REDIS_CLUSTER_NODES,
  });
  console.log(
    `[worker] ${describeBackends(env.DATABASE_URL || DEFAULT_DATABASE_URL, env.REDIS_URL || DEFAULT_REDIS_URL)}`,
  );
  await migrate(sql);
  const ledger = createLedger({ sql, redis, prefix });
  const workerId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  const stop = startMaintenance({
    ledger,
    redis,
    prefix,
    workerId,
    intervalMs: Number(env.RECONCILE_INTERVAL_MS ?? 10_000),
  });
  console.log(
    `[worker] ${workerId} started: ledger maintenance every ${env.RECONCILE_INTERVAL_MS ?? 10_000} ms`,
  );
  const shutdown = async () => {
    stop();
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
