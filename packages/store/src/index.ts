export { describeBackends } from "./describe.ts";
export { type CheckResult, checkBackends } from "./health.ts";
export { deleteKeys, type IsolatedStore, openIsolatedStore } from "./isolated.ts";
export { type LuaScript, loadLua, runLua } from "./lua.ts";
export { listMigrations, type Migration, migrate } from "./migrate.ts";
export { connectPostgres, type PostgresOptions, type Sql } from "./postgres.ts";
export { guardProcess, isConnectionError } from "./process-guard.ts";
export { connectRedis, duplicateClient, type RedisClient, type RedisOptions } from "./redis.ts";
