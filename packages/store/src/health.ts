import { listMigrations } from "./migrate.ts";
import type { Sql } from "./postgres.ts";
import type { RedisClient } from "./redis.ts";

/** One check of a readiness probe: `ok`, or why not. */
export type CheckResult = "ok" | string;

function within<T>(work: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Whether Postgres and Redis answer, and every migration this code knows is applied;
 * each within `timeoutMs`, so a cut backend makes a probe answer "unready" in time
 * rather than hang. Never throws.
 */
export async function checkBackends(
  sql: Sql,
  redis: RedisClient,
  timeoutMs = 1_000,
): Promise<{ postgres: CheckResult; redis: CheckResult; migrations: CheckResult }> {
  const known = listMigrations().map((migration) => migration.version);
  const [postgres, migrations] = await within(
    sql<{ version: number }[]>`select version from schema_migrations`,
    timeoutMs,
    "Postgres",
  ).then(
    (rows) => {
      const applied = new Set(rows.map((row) => row.version));
      const missing = known.filter((version) => !applied.has(version));
      return ["ok", missing.length === 0 ? "ok" : `not applied: ${missing.join(", ")}`] as const;
    },
    (error) => [reason(error), "unknown: Postgres does not answer"] as const,
  );
  const pinged = await within(redis.ping(), timeoutMs, "Redis").then(
    (answer) => (answer === "PONG" ? "ok" : `unexpected answer ${answer}`),
    reason,
  );
  return { postgres, redis: pinged, migrations };
}
