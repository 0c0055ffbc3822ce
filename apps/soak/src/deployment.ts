import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { connectPostgres, connectRedis, migrate, type RedisClient, type Sql } from "@gw/store";
import { startTcpProxy, type TcpProxy } from "@gw/store/testing";
import type { DeploymentTimings } from "./options.ts";
import { ManagedProcess } from "./processes.ts";
import { claimRedisDb, type RedisDbClaim } from "./redis-db.ts";

const ROOT = resolve(import.meta.dir, "..", "..", "..");
const API_MAIN = join(ROOT, "apps", "api", "src", "main.ts");
const WORKER_MAIN = join(ROOT, "apps", "worker", "src", "main.ts");

export const DATABASE_URL =
  process.env.SOAK_DATABASE_URL ??
  process.env.TEST_DATABASE_URL ??
  process.env.DATABASE_URL ??
  "postgres://postgres@127.0.0.1:5432/postgres";
const REDIS_URL =
  process.env.SOAK_REDIS_URL ??
  process.env.TEST_REDIS_URL ??
  process.env.REDIS_URL ??
  "redis://127.0.0.1:6379";

/** A real deployment on this machine: 2 api and 3 worker processes over one store. */
export interface Deployment {
  /** Direct connections of the soak itself (not through the relay), for setup and checks. */
  sql: Sql;
  redis: RedisClient;
  schema: string;
  prefix: string;
  /** The Redis URL with the soak's own db number: FLUSHDB there touches nobody else. */
  redisUrl: string;
  redisDb: number;
  /** The relay every api and worker reaches Postgres through. */
  relay: TcpProxy;
  apis: ManagedProcess[];
  workers: ManagedProcess[];
  apiUrls: string[];
  adminToken: string;
  runDir: string;
  /** Stops every process; drops the schema and flushes the db unless `keep`. */
  close(keep: boolean): Promise<void>;
}

async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/** The deployment's environment: short leases and timeouts, so recovery happens in the run. */
function sharedEnv(t: DeploymentTimings): Record<string, string> {
  return {
    NODE_ENV: "test",
    LOG_LEVEL: "info",
    PG_POOL_MAX: "8",
    TASK_LEASE_MS: String(t.taskLeaseMs),
    TASK_REQUEUE_AFTER_MS: String(t.taskRequeueAfterMs),
    RECONCILE_INTERVAL_MS: String(t.reconcileIntervalMs),
    HOLD_TTL_MS: String(t.holdTtlMs),
    IMAGE_WAIT_TIMEOUT_MS: String(t.imageWaitTimeoutMs),
    UPSTREAM_TIMEOUT_MS: String(t.upstreamTimeoutMs),
    UPSTREAM_MEDIAQ_POLL_MS: String(t.mediaqPollMs),
    API_SHUTDOWN_GRACE_MS: "5000",
    WORKER_SHUTDOWN_GRACE_MS: "5000",
    WORKER_HTTP_PORT: "0",
    PUBLIC_HOSTS: "127.0.0.1",
  };
}

/** A fresh, migrated schema for the run. */
async function createSchema(schema: string): Promise<Sql> {
  const admin = connectPostgres(DATABASE_URL, { max: 1 });
  try {
    await admin.unsafe(`create schema ${schema}`);
  } finally {
    await admin.end();
  }
  const sql = connectPostgres(DATABASE_URL, { schema, max: 6 });
  await migrate(sql);
  return sql;
}

async function dropSchema(schema: string): Promise<void> {
  const cleanup = connectPostgres(DATABASE_URL, { max: 1 });
  try {
    await cleanup.unsafe(`drop schema if exists ${schema} cascade`);
  } finally {
    await cleanup.end();
  }
}

/** The 2 api processes (own ports, the admin token) and 3 workers over one environment. */
async function processes(env: Record<string, string>, logDir: string, adminToken: string) {
  const ports = [await freePort(), await freePort()];
  const apis = ports.map(
    (port, index) =>
      new ManagedProcess({
        name: `api-${index + 1}`,
        file: API_MAIN,
        env: { ...env, PORT: String(port), ADMIN_TOKEN: adminToken },
        readiness: { probeUrl: `http://127.0.0.1:${port}/healthz` },
        logDir,
      }),
  );
  const workers = [1, 2, 3].map(
    (n) =>
      new ManagedProcess({
        name: `worker-${n}`,
        file: WORKER_MAIN,
        env,
        readiness: { pattern: /\S+ started: \d+ tasks at once/ },
        logDir,
      }),
  );
  return { apis, workers, apiUrls: ports.map((port) => `http://127.0.0.1:${port}`) };
}

/**
 * Creates a fresh schema (migrated) and claims an empty Redis db, starts the Postgres
 * relay, then 2 api processes on their own ports and 3 workers, all with the same
 * DATABASE_URL (through the relay), REDIS_URL, REDIS_PREFIX, link secret and files folder.
 */
export async function startDeployment(options: {
  timings: DeploymentTimings;
  upstreamEnv: Record<string, string>;
  label: string;
}): Promise<Deployment> {
  const id = randomBytes(5).toString("hex");
  const schema = `soak_${id}`;
  const prefix = `soak${id}`;
  const runDir = mkdtempSync(join(tmpdir(), `soak-${options.label}-`));
  const logDir = process.env.GW_TEST_LOG_DIR ?? join(runDir, "logs");
  mkdirSync(logDir, { recursive: true });
  const sql = await createSchema(schema);
  const claim: RedisDbClaim = await claimRedisDb(REDIS_URL, id);
  const redis = connectRedis(claim.url);
  const database = new URL(DATABASE_URL);
  const relay = startTcpProxy(Number(database.port || 5432), database.hostname);
  const viaRelay = new URL(DATABASE_URL);
  viaRelay.hostname = "127.0.0.1";
  viaRelay.port = String(relay.port);

  const adminToken = `soak-admin-${randomBytes(16).toString("hex")}`;
  const { apis, workers, apiUrls } = await processes(
    {
      ...sharedEnv(options.timings),
      ...options.upstreamEnv,
      DATABASE_URL: viaRelay.toString(),
      DATABASE_SCHEMA: schema,
      REDIS_URL: claim.url,
      REDIS_PREFIX: prefix,
      RESULT_LINK_SECRET: randomBytes(24).toString("base64url"),
      STORAGE_DIR: join(runDir, "files"),
      DATA_DIR: join(runDir, "data"),
    },
    logDir,
    adminToken,
  );
  const all = [...apis, ...workers];
  const onExit = () => {
    for (const each of all) each.killNow();
  };
  process.on("exit", onExit);
  try {
    // One at a time: two cores start five Bun processes faster in turn than all at once.
    for (const each of all) await each.start();
  } catch (error) {
    onExit();
    throw error;
  }

  let closed = false;
  return {
    sql,
    redis,
    schema,
    prefix,
    redisUrl: claim.url,
    redisDb: claim.db,
    relay,
    apis,
    workers,
    apiUrls,
    adminToken,
    runDir,
    async close(keep) {
      if (closed) return;
      closed = true;
      await Promise.all(all.map((each) => each.stop()));
      process.off("exit", onExit);
      relay.stop();
      if (!keep) await redis.flushdb();
      redis.disconnect();
      await claim.release();
      await sql.end({ timeout: 5 });
      if (keep) return;
      await dropSchema(schema);
      rmSync(runDir, { recursive: true, force: true });
    },
  };
}
