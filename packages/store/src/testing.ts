import { afterAll } from "bun:test";
import { randomBytes } from "node:crypto";
import { migrate } from "./migrate.ts";
import { connectPostgres, type Sql } from "./postgres.ts";
import { connectRedis, type RedisClient } from "./redis.ts";

export const TEST_DATABASE_URL =
  process.env.TEST_DATABASE_URL ??
  process.env.DATABASE_URL ??
  "postgres://postgres@127.0.0.1:5432/postgres";
export const TEST_REDIS_URL =
  process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

export interface TestStore {
  sql: Sql;
  redis: RedisClient;
  /** The Redis key prefix of this test file; every key it writes starts with it. */
  prefix: string;
  schema: string;
  databaseUrl: string;
  redisUrl: string;
  close(): Promise<void>;
}

/**
 * Real Postgres and Redis for one test file, isolated by a fresh schema and a random
 * key prefix, both removed when the file's tests end.
 */
export async function createTestStore(options: { poolMax?: number } = {}): Promise<TestStore> {
  const id = randomBytes(6).toString("hex");
  const schema = `t_${id}`;
  const prefix = `t${id}`;
  const admin = connectPostgres(TEST_DATABASE_URL, { max: 1 });
  await admin.unsafe(`create schema ${schema}`);
  await admin.end();
  const sql = connectPostgres(TEST_DATABASE_URL, { schema, max: options.poolMax ?? 10 });
  await migrate(sql);
  const redis = connectRedis(TEST_REDIS_URL);
  let closed = false;
  const store: TestStore = {
    sql,
    redis,
    prefix,
    schema,
    databaseUrl: TEST_DATABASE_URL,
    redisUrl: TEST_REDIS_URL,
    async close() {
      if (closed) return;
      closed = true;
      await deleteKeys(redis, `${prefix}:*`);
      redis.disconnect();
      await sql.end();
      const cleanup = connectPostgres(TEST_DATABASE_URL, { max: 1 });
      await cleanup.unsafe(`drop schema if exists ${schema} cascade`);
      await cleanup.end();
    },
  };
  afterAll(() => store.close());
  return store;
}

/** Deletes every key matching a pattern, in bounded SCAN batches. */
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
