import { randomBytes } from "node:crypto";
import { migrate } from "./migrate.ts";
import { connectPostgres, type Sql } from "./postgres.ts";
import { connectRedis, type RedisClient } from "./redis.ts";

export interface IsolatedStore {
  sql: Sql;
  redis: RedisClient;
  /** The Redis key prefix; every key written through it starts with it. */
  prefix: string;
  schema: string;
  databaseUrl: string;
  redisUrl: string;
  /** Drops the schema and every `<prefix>:*` key; safe to call twice. */
  close(): Promise<void>;
}

export interface IsolatedStoreOptions {
  databaseUrl: string;
  redisUrl: string;
  /** Starts the schema and prefix names, e.g. "t" for tests, "bench" for benchmarks. */
  label: string;
  poolMax?: number;
}

/** Deletes every key matching a pattern, in bounded SCAN batches (single-node Redis). */
export async function deleteKeys(redis: RedisClient, pattern: string): Promise<number> {
  if (!("scanStream" in redis)) throw new Error("deleteKeys needs a single-node client");
  let deleted = 0;
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 500);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== "0");
  return deleted;
}

/**
 * Real Postgres and Redis isolated by a fresh, migrated schema and a random key prefix,
 * for a test file or a benchmark, so they can share one server with anything else.
 */
export async function openIsolatedStore(options: IsolatedStoreOptions): Promise<IsolatedStore> {
  const id = randomBytes(6).toString("hex");
  const schema = `${options.label}_${id}`;
  const prefix = `${options.label}${id}`;
  const { databaseUrl, redisUrl } = options;
  const admin = connectPostgres(databaseUrl, { max: 1 });
  try {
    await admin.unsafe(`create schema ${schema}`);
  } finally {
    await admin.end();
  }
  const sql = connectPostgres(databaseUrl, { schema, max: options.poolMax ?? 10 });
  const redis = connectRedis(redisUrl);
  let closed = false;
  const store: IsolatedStore = {
    sql,
    redis,
    prefix,
    schema,
    databaseUrl,
    redisUrl,
    async close() {
      if (closed) return;
      closed = true;
      try {
        await deleteKeys(redis, `${prefix}:*`);
      } finally {
        redis.disconnect();
        await sql.end({ timeout: 5 });
        const cleanup = connectPostgres(databaseUrl, { max: 1 });
        try {
          await cleanup.unsafe(`drop schema if exists ${schema} cascade`);
        } finally {
          await cleanup.end();
        }
      }
    },
  };
  try {
    await migrate(sql);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
