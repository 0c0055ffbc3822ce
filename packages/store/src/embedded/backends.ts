import { join } from "node:path";
import { postgresAnswers, redisAnswers } from "../probe.ts";
import { BackendError, DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL } from "./errors.ts";
import { startEmbeddedPostgres } from "./postgres.ts";
import { findRedisServer, startEmbeddedRedis } from "./redis.ts";

// ---------------------------------------------------------------------------------------
// Choosing backends
// ---------------------------------------------------------------------------------------

export interface ResolveOptions {
  /** Local state folder: PGlite keeps its data in `${dataDir}/pglite`. */
  dataDir: string;
  /** The app's Postgres pool size; the embedded server accepts more than that. */
  poolMax: number;
  log?: (line: string) => void;
  /** The local addresses probed when a URL is unset; tests point them at closed ports. */
  defaults?: { databaseUrl?: string; redisUrl?: string };
}

export interface Backends {
  databaseUrl: string;
  redisUrl: string;
  postgres: "external" | "embedded-pglite";
  redis: "external" | "embedded-redis-server";
  stop(): Promise<void>;
}

type Env = Record<string, string | undefined>;

/** Room beyond the app's pool for a migration run, psql, or a probe. */
const SPARE_CONNECTIONS = 4;

/** An empty variable counts as unset, as `DATABASE_URL=` in a .env file means. */
function setting(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/** Hides a password in a URL before it is printed. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@/]*@/i, "$1***@");
}

/** Production uses what it is given and nothing else. */
function productionBackends(env: Env): Backends {
  const databaseUrl = setting(env, "DATABASE_URL");
  const redisUrl = setting(env, "REDIS_URL");
  const missing = [databaseUrl ? null : "DATABASE_URL", redisUrl ? null : "REDIS_URL"].filter(
    (name): name is string => name !== null,
  );
  if (!databaseUrl || !redisUrl) {
    throw new BackendError(
      "MISSING_ENV",
      `NODE_ENV=production needs ${missing.join(" and ")} to be set; embedded backends ` +
        "are for the local start only.",
    );
  }
  return {
    databaseUrl,
    redisUrl,
    postgres: "external",
    redis: "external",
    stop: async () => {},
  };
}

interface Choice {
  /** The URL to use, or undefined when an embedded backend must be started. */
  url: string | undefined;
  /** Why: printed in the banner. */
  source: string;
}

/** The variable's URL; else the default address if something answers there; else embed. */
async function choose(
  configured: string | undefined,
  variable: string,
  fallback: string,
  answers: (url: string) => Promise<boolean>,
): Promise<Choice> {
  if (configured) return { url: configured, source: variable };
  if (await answers(fallback)) return { url: fallback, source: "answered at the default address" };
  return {
    url: undefined,
    source: `${variable} unset, no usable server answered at ${redactUrl(fallback)}`,
  };
}

/** A framed block, so the backends in use cannot be missed in the startup output. */
export function banner(lines: string[]): string {
  const width = Math.max(...lines.map((line) => line.length));
  const rule = "=".repeat(width + 4);
  return [rule, ...lines.map((line) => `| ${line.padEnd(width)} |`), rule].join("\n");
}

/** Banner lines; `why` says how each backend was chosen. */
function describeBackends(
  backends: Backends,
  why: { postgres: string; redis: string },
  dataDir: string,
): string[] {
  const lines = ["BACKENDS IN USE", ""];
  if (backends.postgres === "embedded-pglite") {
    lines.push(`Postgres: EMBEDDED PGlite (${why.postgres})`);
    lines.push(`          data in ${join(dataDir, "pglite")}`);
  } else {
    lines.push(`Postgres: external (${why.postgres})`);
  }
  lines.push(`          ${redactUrl(backends.databaseUrl)}`);
  if (backends.redis === "embedded-redis-server") {
    lines.push(`Redis:    EMBEDDED redis-server for this session (${why.redis})`);
    lines.push("          nothing is persisted; it stops with the gateway");
  } else {
    lines.push(`Redis:    external (${why.redis})`);
  }
  lines.push(`          ${redactUrl(backends.redisUrl)}`);
  if (backends.postgres !== "external" || backends.redis !== "external") {
    lines.push("", "Embedded backends are for local development only.");
    lines.push("Set DATABASE_URL and REDIS_URL to use your own.");
  }
  return lines;
}

/** Stops every started backend, all of them even when one fails, then reports a failure. */
async function stopAll(stops: (() => Promise<void>)[]): Promise<void> {
  const results = await Promise.allSettled(stops.map((stop) => stop()));
  const failed = results.find((result) => result.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
}

/**
 * Picks the Postgres and Redis for this process and says loudly which. Outside
 * production, a missing URL falls back to the default local address, then to an
 * embedded backend. Redis is settled before PGlite starts, so a missing redis-server
 * fails in a second rather than after initialising a database.
 */
export async function resolveBackends(env: Env, options: ResolveOptions): Promise<Backends> {
  const log = options.log ?? console.log;
  if (env.NODE_ENV === "production") {
    const backends = productionBackends(env);
    const why = { postgres: "DATABASE_URL", redis: "REDIS_URL" };
    log(banner(describeBackends(backends, why, options.dataDir)));
    return backends;
  }

  const defaultRedis = options.defaults?.redisUrl ?? DEFAULT_REDIS_URL;
  const [postgres, redis] = await Promise.all([
    choose(
      setting(env, "DATABASE_URL"),
      "DATABASE_URL",
      options.defaults?.databaseUrl ?? DEFAULT_DATABASE_URL,
      postgresAnswers,
    ),
    choose(setting(env, "REDIS_URL"), "REDIS_URL", defaultRedis, redisAnswers),
  ]);
  // Fails fast, before PGlite spends seconds initialising, when Redis cannot be had.
  if (!redis.url) {
    findRedisServer(`REDIS_URL is unset, no Redis answered at ${redactUrl(defaultRedis)}, and `);
  }

  const stops: (() => Promise<void>)[] = [];
  try {
    let redisUrl = redis.url;
    if (!redisUrl) {
      const started = await startEmbeddedRedis({ dataDir: join(options.dataDir, "redis") });
      stops.push(started.stop);
      redisUrl = started.url;
    }
    let databaseUrl = postgres.url;
    if (!databaseUrl) {
      const started = await startEmbeddedPostgres({
        dataDir: join(options.dataDir, "pglite"),
        maxConnections: options.poolMax + SPARE_CONNECTIONS,
      });
      stops.push(started.stop);
      databaseUrl = started.url;
    }
    let stopped: Promise<void> | undefined;
    const backends: Backends = {
      databaseUrl,
      redisUrl,
      postgres: postgres.url ? "external" : "embedded-pglite",
      redis: redis.url ? "external" : "embedded-redis-server",
      stop() {
        stopped ??= stopAll(stops);
        return stopped;
      },
    };
    const why = { postgres: postgres.source, redis: redis.source };
    log(banner(describeBackends(backends, why, options.dataDir)));
    return backends;
  } catch (error) {
    await stopAll(stops).catch(() => {});
    throw error;
  }
}
