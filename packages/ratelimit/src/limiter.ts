import { createHash } from "node:crypto";
import type { RedisClient } from "@gw/store";
import { KEY_RPM_WINDOW_MS, type LimitPolicy, type WindowPolicy } from "./policy.ts";
import { checkWindows, type WindowFigures, type WindowSpec } from "./windows.ts";

/** IP windows whose refusal blocks the IP on both (spec 8.1). */
export type IpGroup = "models" | "balance";
/** IP tiers applied "where enabled" (spec 8.3). */
export type IpTier = "critical" | "general";
export type LimitName = IpGroup | IpTier | "block" | "key_rpm" | "model";

/** Being limited is a result, not an exception. */
export interface LimitResult {
  success: boolean;
  /** The window the figures describe: the IP group (else tier), or the key's rpm (else model). */
  window: LimitName;
  limit: number;
  /** Room left in that window; 0 when refused. */
  remaining: number;
  /** Unix ms when that window next frees a slot; when refused, no earlier than admission. */
  resetMs: number;
  /** Whole seconds until the request would be admitted: 0 when admitted, else at least 1. */
  retryAfterS: number;
  refusedBy: LimitName | null;
  /** The window that refused (for the block: the group window whose excess set it). */
  refusedWindow: WindowPolicy | null;
}

/** Redis did not answer (down, or slower than the timeout); the caller picks open or closed. */
export class LimiterUnavailableError extends Error {}

export interface IpCheck {
  ip: string;
  group?: IpGroup;
  tier?: IpTier;
  nowMs?: number;
}

export interface KeyCheck {
  keyId: bigint | string;
  userId: bigint | string;
  /** The key's own requests per minute; 0 = no separate limit. */
  rpmLimit: number;
  /** Present to apply the per key + model + user window to this model. */
  model?: string;
  nowMs?: number;
}

export interface Limiter {
  readonly policy: LimitPolicy;
  /** The IP phase: the group window with the shared block, and the tier; null if none is on. */
  checkIp(check: IpCheck): Promise<LimitResult | null>;
  /** The key phase: the key's rpm_limit and the model window; null if neither applies. */
  checkKey(check: KeyCheck): Promise<LimitResult | null>;
}

export interface LimiterOptions {
  redis: RedisClient;
  /** Every key starts `${prefix}:rl:`. */
  prefix: string;
  policy: LimitPolicy;
  /** Longest wait for Redis before the check counts as unavailable. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 1_000;
const MAX_MODEL_KEY_CHARS = 128;

interface Named {
  name: LimitName;
  spec: WindowSpec;
}

/** Model names come from clients: long ones are hashed so keys stay bounded. */
function modelKeyPart(model: string): string {
  return model.length <= MAX_MODEL_KEY_CHARS
    ? model
    : `sha1:${createHash("sha1").update(model).digest("hex")}`;
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new LimiterUnavailableError(`Redis did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Rate limits over exact sliding logs in Redis. Each check is one Lua round trip over
 * the keys of one subject, all in one hash slot: `{ip:<ip>}` or `{key:<keyId>}`.
 */
export function createLimiter(options: LimiterOptions): Limiter {
  const { redis, policy } = options;
  const base = `${options.prefix}:rl:`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const windowOf = (name: LimitName, key: string, window: WindowPolicy | null): Named | null =>
    window ? { name, spec: { key, ...window } } : null;

  const run = async (
    subject: string,
    first: Named | null,
    second: Named | null,
    blockMs: number,
    nowMs: number,
  ): Promise<LimitResult | null> => {
    const headline = first ?? second;
    if (!headline) return null;
    let result: Awaited<ReturnType<typeof checkWindows>>;
    try {
      result = await withTimeout(
        checkWindows({
          redis,
          blockKey: `${subject}:block`,
          blockMs: first ? blockMs : 0,
          first: first?.spec ?? null,
          second: second?.spec ?? null,
          nowMs,
        }),
        timeoutMs,
      );
    } catch (error) {
      if (error instanceof LimiterUnavailableError) throw error;
      throw new LimiterUnavailableError("Redis refused the rate-limit check", { cause: error });
    }
    const figures = (first ? result.first : result.second) as WindowFigures;
    const refused =
      result.refusedBy === "second" ? second : result.refusedBy === null ? null : first;
    const success = result.admitted;
    return {
      success,
      window: headline.name,
      limit: figures.limit,
      remaining: success ? figures.remaining : 0,
      resetMs: success ? figures.resetMs : Math.max(figures.resetMs, result.retryAtMs),
      retryAfterS: success ? 0 : Math.max(1, Math.ceil((result.retryAtMs - nowMs) / 1000)),
      refusedBy: result.refusedBy === "block" ? "block" : (refused?.name ?? null),
      refusedWindow: refused
        ? { limit: refused.spec.limit, windowMs: refused.spec.windowMs }
        : null,
    };
  };

  return {
    policy,
    checkIp({ ip, group, tier, nowMs = Date.now() }) {
      const subject = `${base}{ip:${ip}}`;
      const first = group ? windowOf(group, `${subject}:${group}`, policy[group]) : null;
      const second = tier ? windowOf(tier, `${subject}:${tier}`, policy[tier]) : null;
      return run(subject, first, second, policy.blockMs, nowMs);
    },
    checkKey({ keyId, userId, rpmLimit, model, nowMs = Date.now() }) {
      const subject = `${base}{key:${keyId}}`;
      const rpm = rpmLimit > 0 ? { limit: rpmLimit, windowMs: KEY_RPM_WINDOW_MS } : null;
      const first = windowOf("key_rpm", `${subject}:rpm`, rpm);
      const second =
        model === undefined
          ? null
          : windowOf("model", `${subject}:model:${userId}:${modelKeyPart(model)}`, policy.model);
      return run(subject, first, second, 0, nowMs);
    },
  };
}
