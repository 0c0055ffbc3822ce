import { parseTrustedProxies } from "@gw/auth";
import { type LimitPolicy, parseLimitPolicy } from "@gw/ratelimit";

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
  };
}
