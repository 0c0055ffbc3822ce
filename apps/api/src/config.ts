import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { parseTrustedProxies } from "@gw/auth";
import { type LimitPolicy, parseLimitPolicy } from "@gw/ratelimit";
import { linkTtlFromEnv } from "@gw/storage";

export type BillingStats = "key" | "account";
export type BillingDisplay = "USD" | "CNY" | "TOKENS";

export interface ApiConfig {
  port: number;
  databaseUrl: string;
  redisUrl: string;
  redisClusterNodes: string | undefined;
  redisPrefix: string;
  adminToken: string | undefined;
  trustedProxies: string[];
  production: boolean;
  /** Whose figures the two legacy billing calls show: the key's (default) or the account's. */
  billingStats: BillingStats;
  billingDisplay: BillingDisplay;
  usdCnyRate: number;
  holdTtlMs: number;
  /** Largest JSON body any endpoint of this app reads. */
  maxJsonBodyBytes: number;
  /** Rate-limit windows and groups, parsed from RATE_LIMIT_* variables. */
  rateLimits: LimitPolicy;
  /** Operator catalog file (JSON) that overrides or extends the built-in catalog. */
  catalogFile: string | undefined;
  /** Postgres schema to work in (DATABASE_SCHEMA); tests give each process theirs. */
  databaseSchema: string | undefined;
  /**
   * How long a SIGTERM'd api keeps answering the requests in flight (API_SHUTDOWN_GRACE_MS);
   * waiting image requests still unanswered then get `504 task_pending` with their task id.
   */
  shutdownGraceMs: number;
  /**
   * Origins browsers may call from (CORS_ORIGINS, comma-separated); `*` (the default)
   * allows any origin, without credentials: keys are bearer tokens, never cookies.
   */
  corsOrigins: "*" | string[];
  /** Bearer token for GET /metrics (METRICS_TOKEN); the admin token is accepted too. */
  metricsToken: string | undefined;
  /** Base of result links (PUBLIC_BASE_URL). */
  publicBaseUrl: string | undefined;
  /**
   * Hosts (`name` or `name:port`, lower case) whose origin may be used for result links
   * when the client called them (PUBLIC_HOSTS); any other Host header is never used.
   */
  publicHosts: string[];
  /** HMAC secret of result links; every api process of one deployment shares it. */
  linkSecret: string;
  /** Lifetime of result links and files, at most 13 days. */
  linkTtlSeconds: number;
  /** How long an image request waits for its task before answering `task_pending`. */
  imageWaitMs: number;
  /** Job stream partitions (JOB_PARTITIONS); workers must use the same number. */
  jobPartitions: number;
  /** How long paid calls may reuse a key's row (AUTH_CACHE_MS; 0 turns it off). */
  authCacheMs: number;
  /** Where the gateway keeps files when STORAGE=local (the default). */
  dataDir: string;
  /** The raw environment, for the settings packages parse themselves (storage, fetch). */
  env: Record<string, string | undefined>;
}

export const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres";
export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

export class ConfigError extends Error {}

function oneOf<T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined || value === "") return fallback;
  const upper = allowed.find((option) => option.toLowerCase() === value.toLowerCase());
  if (!upper) throw new ConfigError(`${name} must be one of ${allowed.join(", ")}, got "${value}"`);
  return upper;
}

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0)
    throw new ConfigError(`${name} must be a positive number`);
  return number;
}

function baseUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error();
    return url.href.replace(/\/$/, "");
  } catch {
    throw new ConfigError(`PUBLIC_BASE_URL must be an http(s) URL, got "${value}"`);
  }
}

const HOST = /^[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/;

function publicHosts(value: string | undefined): string[] {
  const hosts = (value ?? "")
    .split(",")
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
  const bad = hosts.find((host) => !HOST.test(host));
  if (bad !== undefined)
    throw new ConfigError(`PUBLIC_HOSTS has an entry that is not a host or host:port: "${bad}"`);
  return hosts;
}

function linkSecret(value: string | undefined, production: boolean): string {
  if (value) {
    if (value.length < 32)
      throw new ConfigError("RESULT_LINK_SECRET must be at least 32 characters");
    return value;
  }
  if (production) throw new ConfigError("NODE_ENV=production needs RESULT_LINK_SECRET");
  // Links signed by this process only; `bun run start` keeps a secret in DATA_DIR instead.
  return randomBytes(32).toString("base64url");
}

function linkTtl(value: string | undefined): number {
  try {
    return linkTtlFromEnv(value);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/** `*`, or a list of origins (`https://app.example.com`), each checked to be one. */
function corsOrigins(value: string | undefined): "*" | string[] {
  if (value === undefined || value.trim() === "" || value.trim() === "*") return "*";
  const origins = value
    .split(",")
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {}
    if (!parsed || parsed.origin !== origin || !/^https?:$/.test(parsed.protocol))
      throw new ConfigError(
        `CORS_ORIGINS has "${origin}", which is not an origin like https://app.example.com (scheme, host, optional port; no path)`,
      );
  }
  return origins;
}

/** Reads the environment once at start; a bad value stops the process with a clear message. */
export function loadConfig(env: Record<string, string | undefined> = process.env): ApiConfig {
  const production = env.NODE_ENV === "production";
  if (production) {
    const missing = ["DATABASE_URL", "REDIS_URL"].filter((name) => !env[name]);
    if (missing.length > 0) {
      throw new ConfigError(
        `NODE_ENV=production needs ${missing.join(" and ")}; no local defaults are used in production`,
      );
    }
  }
  const proxies = parseTrustedProxies(env.TRUSTED_PROXIES);
  if (!proxies.ok)
    throw new ConfigError(`TRUSTED_PROXIES has an invalid entry: "${proxies.invalid}"`);
  const rateLimits = parseLimitPolicy(env);
  if (!rateLimits.ok) throw new ConfigError(rateLimits.error);
  const adminToken = env.ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && adminToken.length < 16) {
    throw new ConfigError("ADMIN_TOKEN must be at least 16 characters");
  }
  return {
    port: positive("PORT", env.PORT, 3000),
    databaseUrl: env.DATABASE_URL || DEFAULT_DATABASE_URL,
    redisUrl: env.REDIS_URL || DEFAULT_REDIS_URL,
    redisClusterNodes: env.REDIS_CLUSTER_NODES || undefined,
    redisPrefix: env.REDIS_PREFIX || "gw",
    adminToken,
    trustedProxies: proxies.value,
    production,
    billingStats: oneOf("BILLING_STATS", env.BILLING_STATS, ["key", "account"] as const, "key"),
    billingDisplay: oneOf(
      "BILLING_DISPLAY",
      env.BILLING_DISPLAY,
      ["USD", "CNY", "TOKENS"] as const,
      "USD",
    ),
    usdCnyRate: positive("USD_CNY_RATE", env.USD_CNY_RATE, 7.3),
    holdTtlMs: positive("HOLD_TTL_MS", env.HOLD_TTL_MS, 30 * 60 * 1000),
    maxJsonBodyBytes: positive("MAX_JSON_BODY_BYTES", env.MAX_JSON_BODY_BYTES, 1024 * 1024),
    rateLimits: rateLimits.value,
    catalogFile: env.CATALOG_FILE || undefined,
    databaseSchema: env.DATABASE_SCHEMA || undefined,
    shutdownGraceMs: positive("API_SHUTDOWN_GRACE_MS", env.API_SHUTDOWN_GRACE_MS, 60_000),
    corsOrigins: corsOrigins(env.CORS_ORIGINS),
    metricsToken: env.METRICS_TOKEN || undefined,
    publicBaseUrl: baseUrl(env.PUBLIC_BASE_URL),
    publicHosts: publicHosts(env.PUBLIC_HOSTS),
    linkSecret: linkSecret(env.RESULT_LINK_SECRET, production),
    linkTtlSeconds: linkTtl(env.RESULT_LINK_TTL_SECONDS),
    imageWaitMs: positive("IMAGE_WAIT_TIMEOUT_MS", env.IMAGE_WAIT_TIMEOUT_MS, 650_000),
    jobPartitions: Math.floor(positive("JOB_PARTITIONS", env.JOB_PARTITIONS, 4)),
    authCacheMs:
      env.AUTH_CACHE_MS === "0" ? 0 : positive("AUTH_CACHE_MS", env.AUTH_CACHE_MS, 1_000),
    dataDir: resolve(env.DATA_DIR || join(import.meta.dir, "..", "..", "..", ".data")),
    env,
  };
}
