import { afterAll } from "bun:test";
import { type IsolatedStore, openIsolatedStore } from "./isolated.ts";

export { deleteKeys } from "./isolated.ts";
export { startTcpProxy, type TcpProxy } from "./tcp-relay.ts";

export const TEST_DATABASE_URL =
  process.env.TEST_DATABASE_URL ??
  process.env.DATABASE_URL ??
  "postgres://postgres@127.0.0.1:5432/postgres";
export const TEST_REDIS_URL =
  process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

export type TestStore = IsolatedStore;

/**
 * Real Postgres and Redis for one test file, isolated by a fresh schema and a random
 * key prefix, both removed when the file's tests end.
 */
export async function createTestStore(options: { poolMax?: number } = {}): Promise<TestStore> {
  const store = await openIsolatedStore({
    databaseUrl: TEST_DATABASE_URL,
    redisUrl: TEST_REDIS_URL,
    label: "t",
    poolMax: options.poolMax,
  });
  afterAll(() => store.close());
  return store;
}
