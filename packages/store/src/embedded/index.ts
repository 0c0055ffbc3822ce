/**
 * Embedded stand-ins for the local quick start only: a PGlite database served over the
 * Postgres wire protocol, and a redis-server started for the session. Production never
 * reaches them; `resolveBackends` demands real URLs there.
 */
export {
  type Backends,
  banner,
  type ResolveOptions,
  redactUrl,
  resolveBackends,
} from "./backends.ts";
export {
  BackendError,
  type BackendErrorCode,
  DEFAULT_DATABASE_URL,
  DEFAULT_REDIS_URL,
} from "./errors.ts";
export {
  type EmbeddedPostgres,
  type EmbeddedPostgresOptions,
  startEmbeddedPostgres,
} from "./postgres.ts";
export {
  type EmbeddedRedis,
  type EmbeddedRedisOptions,
  findRedisServer,
  freePort,
  redisHowTo,
  startEmbeddedRedis,
} from "./redis.ts";
