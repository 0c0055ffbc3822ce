import { join, resolve } from "node:path";
import { linkTtlFromEnv } from "@gw/storage";

export interface WorkerConfig {
  databaseUrl: string;
  /** Postgres schema to work in (DATABASE_SCHEMA); tests give each worker theirs. */
  databaseSchema: string | undefined;
  redisUrl: string;
  redisClusterNodes: string | undefined;
  prefix: string;
  catalogFile: string | undefined;
  dataDir: string;
  /** Tasks one process runs at once. */
  concurrency: number;
  /** Postgres connections of one process; a task waiting on its upstream holds none. */
  poolMax: number;
  /** How long a task stays with its worker without a heartbeat before another may take it. */
  leaseMs: number;
  /** A queued task whose job may be lost (Redis flushed) is enqueued again after this. */
  requeueAfterMs: number;
  /** A task is given up after this many runs that never finished (poison task). */
  maxAttempts: number;
  reconcileIntervalMs: number;
  holdTtlMs: number;
  /** Result files are deleted this long after completion; links expire by then too. */
  linkTtlSeconds: number;
  env: Record<string, string | undefined>;
}

export const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres";
export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

function positive(env: Record<string, string | undefined>, name: string, fallback: number) {
  const value = env[name];
  if (value === undefined || value === "") return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new Error(`${name} must be a positive number`);
  return number;
}

/** Reads the worker's settings once at start; a bad value stops it with a clear message. */
export function loadWorkerConfig(
  env: Record<string, string | undefined> = process.env,
): WorkerConfig {
  if (env.NODE_ENV === "production" && (!env.DATABASE_URL || !env.REDIS_URL))
    throw new Error("NODE_ENV=production needs DATABASE_URL and REDIS_URL");
  return {
    databaseUrl: env.DATABASE_URL || DEFAULT_DATABASE_URL,
    databaseSchema: env.DATABASE_SCHEMA || undefined,
    redisUrl: env.REDIS_URL || DEFAULT_REDIS_URL,
    redisClusterNodes: env.REDIS_CLUSTER_NODES || undefined,
    prefix: env.REDIS_PREFIX || "gw",
    catalogFile: env.CATALOG_FILE || undefined,
    dataDir: resolve(env.DATA_DIR || join(import.meta.dir, "..", "..", "..", ".data")),
    concurrency: Math.floor(positive(env, "WORKER_CONCURRENCY", 16)),
    poolMax: Math.floor(positive(env, "PG_POOL_MAX", 10)),
    leaseMs: positive(env, "TASK_LEASE_MS", 60_000),
    requeueAfterMs: positive(env, "TASK_REQUEUE_AFTER_MS", 60_000),
    maxAttempts: Math.floor(positive(env, "TASK_MAX_ATTEMPTS", 3)),
    reconcileIntervalMs: positive(env, "RECONCILE_INTERVAL_MS", 10_000),
    holdTtlMs: positive(env, "HOLD_TTL_MS", 30 * 60 * 1000),
    linkTtlSeconds: linkTtlFromEnv(env.RESULT_LINK_TTL_SECONDS),
    env,
  };
}
