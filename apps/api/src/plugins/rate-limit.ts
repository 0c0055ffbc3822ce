import type { Principal } from "@gw/accounts";
import { createClientIpResolver, formatCidr, parseCidr } from "@gw/auth";
import {
  createLimiter,
  describeWindow,
  type IpGroup,
  type IpTier,
  type Limiter,
  LimiterUnavailableError,
  type LimitResult,
} from "@gw/ratelimit";
import type { ErrorCode } from "@gw/schemas";
import type { RedisClient } from "@gw/store";
import { Elysia } from "elysia";
import type { ApiConfig } from "../config.ts";
import { ApiError } from "../errors.ts";
import { noteRequest } from "../observe/request-context.ts";

/**
 * What a route declares as `limit: {...}` (spec section 8, rate-limit groups).
 * The key's own `rpm_limit` needs no declaration: it applies to every call with
 * ordinary authorization unless the route sets `keyRpm: false`.
 */
export interface LimitOptions {
  /** The IP window of the models or balance group, the IP block they share, and X-RateLimit-* headers. */
  ip?: IpGroup;
  /** The critical or general IP tier, when the server enables it. */
  tier?: IpTier;
  /**
   * The per key + model + user window; the model is the path param `model`, else body
   * `model`, else "*". Needs `auth`. A function applies it only to the requests it
   * accepts (e.g. the message-style answers of a route that serves several styles).
   */
  model?: boolean | ((request: Request) => boolean);
  /** false exempts the route from the key's rpm_limit (video reads and content, compatibility task readers). */
  keyRpm?: boolean;
  /** Refuse with 503 when Redis cannot answer, whatever the group; for routes that can move money. */
  failClosed?: boolean;
}

/** Answer when Redis cannot say whether a fail-closed call is within its limits. */
const UNAVAILABLE_CODE: ErrorCode = "rate_limit_unavailable";
const UNAVAILABLE_RETRY_S = 5;
const WARN_EVERY_MS = 30_000;

interface TransformContext {
  request: Request;
  server: { requestIP(request: Request): { address: string } | null } | null;
  set: { headers: Record<string, string | number> };
}

/** Requests whose key phase is not the auth macro's to run: exempt, or run with the model window. */
const keyPhaseElsewhere = new WeakSet<Request>();

const lastWarnedMs = new Map<string, number>();
function warnFailOpen(what: string, error: unknown): void {
  const now = Date.now();
  if (now - (lastWarnedMs.get(what) ?? 0) < WARN_EVERY_MS) return;
  lastWarnedMs.set(what, now);
  const reason = error instanceof Error ? error.message : String(error);
  console.warn(`[rate-limit] ${what} not enforced (fail open): ${reason}`);
}

/**
 * Runs one check. Redis being unavailable admits the request (fail open, logged at most
 * every 30 s per group) unless `failClosed`, which refuses with 503: a call that can
 * move money never runs unmetered.
 */
async function guarded(
  check: () => Promise<LimitResult | null>,
  failClosed: boolean,
  what: string,
): Promise<LimitResult | null> {
  try {
    return await check();
  } catch (error) {
    if (!(error instanceof LimiterUnavailableError)) throw error;
    if (!failClosed) {
      warnFailOpen(what, error.cause ?? error);
      return null;
    }
    throw new ApiError(
      UNAVAILABLE_CODE,
      "Rate limits cannot be checked right now, so this call is refused rather than run unmetered; retry shortly",
      { "retry-after": String(UNAVAILABLE_RETRY_S) },
    );
  }
}

/** X-RateLimit-* of the group window; Reset is Unix seconds, rounded up so it is never early. */
function windowHeaders(result: LimitResult): Record<string, string> {
  return {
    "x-ratelimit-limit": String(result.limit),
    "x-ratelimit-remaining": String(result.remaining),
    "x-ratelimit-reset": String(Math.ceil(result.resetMs / 1000)),
  };
}

function refusal(result: LimitResult, headers: Record<string, string>, model?: string): ApiError {
  noteRequest({ limitedBy: result.refusedBy ?? "unknown" });
  const window = result.refusedWindow ? ` (${describeWindow(result.refusedWindow)})` : "";
  const retry = `retry after ${result.retryAfterS} s`;
  const message =
    result.refusedBy === "block"
      ? `Too many requests from your IP address: it is blocked for a while after exceeding a rate window; ${retry}`
      : result.refusedBy === "key_rpm"
        ? `This API key allows ${result.refusedWindow?.limit} requests per minute; ${retry}`
        : result.refusedBy === "model"
          ? `Too many requests for model ${model?.slice(0, 128)} with this key${window}; ${retry}`
          : `Too many requests from your IP address to this endpoint group${window}; ${retry}`;
  return new ApiError("rate_limited", message, {
    ...headers,
    "retry-after": String(result.retryAfterS),
  });
}

/**
 * The subject of the IP windows. An IPv6 client usually holds a whole /64, so its
 * addresses share one window; otherwise each address of it would be a fresh client.
 */
export function ipSubject(ip: string | null): string {
  // No socket address (e.g. app.handle in a test) still gets one shared window.
  if (ip === null) return "unknown";
  if (!ip.includes(":")) return ip;
  const network = parseCidr(`${ip}/64`);
  return network ? formatCidr(network) : ip;
}

function modelOf(params: unknown, body: unknown): string {
  const fromPath = (params as { model?: unknown } | undefined)?.model;
  if (typeof fromPath === "string" && fromPath !== "") return fromPath;
  const fromBody = (body as { model?: unknown } | null | undefined)?.model;
  return typeof fromBody === "string" && fromBody !== "" ? fromBody : "*";
}

/**
 * The `limit` macro. The IP phase runs as a transform hook, which Elysia runs before
 * validation and before every resolve, so unauthenticated floods are refused before
 * they reach Postgres; the model phase runs as a beforeHandle, after `auth` resolved
 * `principal`, whatever order the route lists its options in.
 */
export function rateLimitPlugin(limiter: Limiter, trustedProxies: string[]) {
  const clientIpOf = createClientIpResolver(trustedProxies);
  return new Elysia({ name: "gw/rate-limit" }).macro({
    limit: (options: LimitOptions) => {
      const failClosed = options.failClosed ?? false;
      const ipPhase = options.ip !== undefined || options.tier !== undefined;
      const modelApplies = (request: Request) =>
        typeof options.model === "function" ? options.model(request) : options.model === true;
      // Whether the auth macro runs the key phase for every request of this route.
      const keyPhaseHere = options.keyRpm !== false && !options.model;
      // Only the hooks a route needs are attached, so an undeclared phase costs nothing.
      const transform = async ({ request, server, set }: TransformContext) => {
        if (!keyPhaseHere && (options.keyRpm === false || modelApplies(request))) {
          keyPhaseElsewhere.add(request);
        }
        if (!ipPhase) return;
        const peer = server?.requestIP(request)?.address ?? null;
        const ip = ipSubject(clientIpOf(peer, request.headers));
        const result = await guarded(
          () => limiter.checkIp({ ip, group: options.ip, tier: options.tier }),
          failClosed,
          `IP limit ${options.ip ?? options.tier}`,
        );
        if (!result) return;
        const headers = result.window === options.ip ? windowHeaders(result) : {};
        if (!result.success) throw refusal(result, headers);
        Object.assign(set.headers, headers);
      };
      const beforeHandle = async (context: {
        request: Request;
        params?: unknown;
        body?: unknown;
      }) => {
        if (!modelApplies(context.request)) return;
        const { principal, params, body } = context as typeof context & {
          principal?: Principal;
        };
        if (!principal) throw new Error("limit.model needs the auth macro on the same route");
        const model = modelOf(params, body);
        const withRpm = options.keyRpm !== false && principal.rpmLimit > 0;
        const result = await guarded(
          () =>
            limiter.checkKey({
              keyId: principal.keyId,
              userId: principal.userId,
              rpmLimit: withRpm ? principal.rpmLimit : 0,
              model,
            }),
          // The key's rpm_limit fails closed wherever it is checked.
          failClosed || withRpm,
          "model limit",
        );
        if (result && !result.success) throw refusal(result, {}, model);
      };
      return {
        ...(!keyPhaseHere || ipPhase ? { transform } : {}),
        ...(options.model ? { beforeHandle } : {}),
      };
    },
  });
}

/**
 * The key's rpm_limit, run by the auth macro right after ordinary authorization. It
 * fails closed: a key whose owner set a per-minute limit is never served unmetered.
 */
export function keyRpmGuard(limiter: Limiter) {
  return async (principal: Principal, request: Request): Promise<void> => {
    if (principal.rpmLimit <= 0 || keyPhaseElsewhere.has(request)) return;
    const result = await guarded(
      () =>
        limiter.checkKey({
          keyId: principal.keyId,
          userId: principal.userId,
          rpmLimit: principal.rpmLimit,
        }),
      true,
      "key rpm_limit",
    );
    if (result && !result.success) throw refusal(result, {});
  };
}

/** The limiter over the app's Redis and prefix, its macro, and the auth macro's key check. */
export function createRateLimiting(config: ApiConfig, redis: RedisClient) {
  const limiter = createLimiter({ redis, prefix: config.redisPrefix, policy: config.rateLimits });
  return {
    limiter,
    plugin: rateLimitPlugin(limiter, config.trustedProxies),
    keyRpm: keyRpmGuard(limiter),
  };
}
