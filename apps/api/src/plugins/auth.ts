import { authorize, type Principal, type PrincipalCache } from "@gw/accounts";
import { type AuthMode, createClientIpResolver } from "@gw/auth";
import type { Sql } from "@gw/store";
import { Elysia } from "elysia";
import { ApiError } from "../errors.ts";
import { noteRequest } from "../observe/request-context.ts";

export interface AuthOptions {
  mode: AuthMode;
  /** Accept `x-api-key` as well as `Authorization: Bearer` (spec 5.2 lists where). */
  apiKeyHeader?: boolean;
  /** Also accept `x-goog-api-key` or `?key=`, as generate-content clients send the key. */
  contentKey?: boolean;
}

const MESSAGES = {
  invalid_api_key: "Invalid or missing API key; send Authorization: Bearer <API_KEY>",
  key_deleted: "This API key was deleted",
  account_disabled: "The account of this API key is disabled",
  key_disabled: "This API key is disabled",
  key_expired: "This API key has expired",
  key_exhausted: "This API key has used up its budget",
  ip_not_allowed: "This API key may not be used from your IP address",
} as const;

function extractSecret(request: Request, options: AuthOptions): string | null {
  const { headers } = request;
  const authorization = headers.get("authorization");
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return match ? match[1]! : null;
  }
  const apiKey = options.apiKeyHeader ? headers.get("x-api-key") : null;
  if (apiKey || !options.contentKey) return apiKey;
  return headers.get("x-goog-api-key") ?? new URL(request.url).searchParams.get("key");
}

/** Runs after ordinary authorization: the key's own rpm_limit (see plugins/rate-limit.ts). */
export type KeyLimit = (principal: Principal, request: Request) => Promise<void>;

/**
 * The `auth` macro: a route declares `{ auth: { mode: "ordinary" } }` and its handler
 * receives `principal`. The client IP comes from the socket, or from X-Forwarded-For
 * only when the socket peer is a configured trusted proxy. Ordinary authorization also
 * checks the key's rpm_limit, so no ordinary route can forget it.
 */
export function authPlugin(
  sql: Sql,
  trustedProxies: string[],
  limitKey: KeyLimit = async () => {},
  /** Paid-call routes whose key rows may come from the cache (see PrincipalCache). */
  cached: { paths: Set<string>; cache: PrincipalCache } | null = null,
) {
  const clientIpOf = createClientIpResolver(trustedProxies);
  /** The caller of a request with a key, or null when it sends none; a bad key throws. */
  const authenticateNow = async (
    request: Request,
    clientIp: string | null,
    options: AuthOptions,
  ): Promise<Principal | null> => {
    const secret = extractSecret(request, options);
    if (!secret) return null;
    const useCache = cached?.paths.has(new URL(request.url).pathname) ? cached.cache : null;
    const result = await authorize(sql, secret, options.mode, clientIp, undefined, useCache);
    if (!result.ok) throw new ApiError(result.code, MESSAGES[result.code]);
    noteRequest({ keyId: result.principal.keyId.toString() });
    if (options.mode === "ordinary") await limitKey(result.principal, request);
    return result.principal;
  };
  // A request may be authenticated twice: before its body is read (requireKey, from the
  // body plugin) and by its route's macro. The second use takes the first answer, so a
  // key costs one lookup and one rpm count per request.
  const answers = new WeakMap<Request, Map<string, Promise<Principal | null>>>();
  const authenticate = (request: Request, clientIp: string | null, options: AuthOptions) => {
    const key = JSON.stringify(options);
    const byOptions = answers.get(request) ?? new Map<string, Promise<Principal | null>>();
    answers.set(request, byOptions);
    const answer = byOptions.get(key) ?? authenticateNow(request, clientIp, options);
    byOptions.set(key, answer);
    return answer;
  };
  /** Refuses a request without a valid key; runs before the body is read (item 10). */
  const requireKey = async (
    request: Request,
    server: { requestIP(request: Request): { address: string } | null } | null,
    options: AuthOptions = { mode: "ordinary" },
  ): Promise<void> => {
    const clientIp = clientIpOf(server?.requestIP(request)?.address ?? null, request.headers);
    if (!(await authenticate(request, clientIp, options)))
      throw new ApiError("invalid_api_key", MESSAGES.invalid_api_key);
  };
  const plugin = new Elysia({ name: "gw/auth" })
    .resolve({ as: "global" }, ({ request, server }) => ({
      clientIp: clientIpOf(server?.requestIP(request)?.address ?? null, request.headers),
    }))
    .macro({
      auth: (options: AuthOptions) => ({
        async resolve({ request, clientIp }) {
          const principal = await authenticate(request, clientIp, options);
          if (!principal) throw new ApiError("invalid_api_key", MESSAGES.invalid_api_key);
          return { principal };
        },
      }),
      /** For public routes that a key only narrows: `viewer` is null without one. */
      optionalAuth: (options: AuthOptions) => ({
        async resolve({ request, clientIp }) {
          return { viewer: await authenticate(request, clientIp, options) };
        },
      }),
    });
  return Object.assign(plugin, { requireKey });
}
