/** An isolated store per bench run: a fresh schema and Redis prefix, removed again at the end. */
import { type IsolatedStore, openIsolatedStore } from "@gw/store";

export const BENCH_DATABASE_URL =
  process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const BENCH_REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** A fresh, migrated schema and Redis prefix for one benchmark, removed by `close()`. */
export function openBenchStore(options: { poolMax: number }): Promise<IsolatedStore> {
  return openIsolatedStore({
    databaseUrl: BENCH_DATABASE_URL,
    redisUrl: BENCH_REDIS_URL,
    label: "bench",
    poolMax: options.poolMax,
  });
}
