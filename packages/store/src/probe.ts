import { Redis } from "ioredis";
import postgres from "postgres";

/**
 * Settles with `fallback` if `work` has not settled within `timeoutMs`. The timer is
 * cleared either way so a probe never keeps the process alive.
 */
async function within<T>(work: Promise<T>, timeoutMs: number, fallback: T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether a Postgres at `url` accepts a connection and runs `select 1` in time.
 * Any failure (refused, auth, timeout) is a plain `false`: callers only decide
 * whether to fall back, they report the outcome themselves.
 */
export async function postgresAnswers(url: string, timeoutMs = 1500): Promise<boolean> {
  let sql: postgres.Sql;
  try {
    sql = postgres(url, {
      max: 1,
      connect_timeout: Math.max(1, Math.ceil(timeoutMs / 1000)),
      idle_timeout: 1,
      onnotice: () => {},
    });
  } catch {
    return false; // an unparsable URL
  }
  const query = sql`select 1 as ok`.then(
    () => true,
    () => false,
  );
  try {
    return await within(query, timeoutMs, false);
  } finally {
    // timeout 0 drops a connection still being attempted instead of waiting for it.
    await sql.end({ timeout: 0 }).catch(() => {});
  }
}

/**
 * Whether a Redis at `url` answers PING in time. One attempt, no reconnects and no
 * offline queue, and the error listener keeps ioredis from printing "Unhandled
 * error event" for a refused connection.
 */
export async function redisAnswers(url: string, timeoutMs = 1500): Promise<boolean> {
  let redis: Redis;
  try {
    redis = new Redis(url, {
      lazyConnect: true,
      connectTimeout: timeoutMs,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
      reconnectOnError: () => false,
    });
  } catch {
    return false;
  }
  redis.on("error", () => {});
  const ping = redis
    .connect()
    .then(() => redis.ping())
    .then(
      (reply) => reply === "PONG",
      () => false,
    );
  try {
    return await within(ping, timeoutMs, false);
  } finally {
    redis.disconnect();
  }
}
