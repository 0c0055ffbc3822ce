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
  /** Jobs one process holds at once (running, or waiting for their upstream's lane). */
  concurrency: number;
  /** Job stream partitions (JOB_PARTITIONS); the api must use the same number. */
  partitions: number;
  /** Tasks one upstream runs at once per process: `UPSTREAM_<NAME>_CONCURRENCY`. */
  laneLimits: Record<string, number>;
  /** The limit of an upstream with no setting of its own. */
  laneDefault: number;
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
  /** Webhooks: how often due deliveries are looked for, the first retry delay, attempts. */
  webhookPollMs: number;
  webhookRetryBaseMs: number;
  webhookMaxAttempts: number;
  /** Result files are deleted this long after completion; links expire by then too. */
  linkTtlSeconds: number;
  /** Port of the worker's own /metrics, /healthz and /readyz (WORKER_HTTP_PORT; 0: any free port). */
  httpPort: number;
  /** On SIGTERM: how long running tasks may take to finish before they are handed back. */
  shutdownGraceMs: number;
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

function nonNegative(env: Record<string, string | undefined>, name: string, fallback: number) {
  const value = env[name];
  if (value === undefined || value === "") return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0) throw new Error(`${name} must be 0 or more`);
  return number;
}

/** The port Prometheus exporters use by convention (OpenTelemetry's is 9464). */
export const DEFAULT_WORKER_HTTP_PORT = 9464;

function portFromEnv(value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error("WORKER_HTTP_PORT must be a port number (0 for any free port)");
  return port;
}

/** The offline provider renders on this process's CPU: a few at once keep the event loop free. */
const OFFLINE_LANE = 4;

/** `UPSTREAM_<NAME>_CONCURRENCY` for each provider name (lower case). */
function laneLimitsFromEnv(env: Record<string, string | undefined>): Record<string, number> {
  const limits: Record<string, number> = { offline: OFFLINE_LANE };
  for (const name of Object.keys(env)) {
    const match = /^UPSTREAM_([A-Z0-9]+)_CONCURRENCY$/.exec(name);
    if (match?.[1]) limits[match[1].toLowerCase()] = Math.floor(positive(env, name, 1));
  }
  return limits;
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
    concurrency: Math.floor(positive(env, "WORKER_CONCURRENCY", 4096)),
    partitions: Math.floor(positive(env, "JOB_PARTITIONS", 4)),
    laneLimits: laneLimitsFromEnv(env),
    laneDefault: Math.floor(positive(env, "UPSTREAM_CONCURRENCY", 2048)),
    poolMax: Math.floor(positive(env, "PG_POOL_MAX", 10)),
    leaseMs: positive(env, "TASK_LEASE_MS", 60_000),
    requeueAfterMs: positive(env, "TASK_REQUEUE_AFTER_MS", 60_000),
    maxAttempts: Math.floor(positive(env, "TASK_MAX_ATTEMPTS", 3)),
    reconcileIntervalMs: positive(env, "RECONCILE_INTERVAL_MS", 10_000),
    holdTtlMs: positive(env, "HOLD_TTL_MS", 30 * 60 * 1000),
    webhookPollMs: positive(env, "WEBHOOK_POLL_MS", 1_000),
    webhookRetryBaseMs: positive(env, "WEBHOOK_RETRY_BASE_MS", 5_000),
    webhookMaxAttempts: positive(env, "WEBHOOK_MAX_ATTEMPTS", 8),
    linkTtlSeconds: linkTtlFromEnv(env.RESULT_LINK_TTL_SECONDS),
    httpPort: portFromEnv(env.WORKER_HTTP_PORT, DEFAULT_WORKER_HTTP_PORT),
    shutdownGraceMs: nonNegative(env, "WORKER_SHUTDOWN_GRACE_MS", 30_000),
    env,
  };
}
