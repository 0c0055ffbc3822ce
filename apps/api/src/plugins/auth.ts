import { type AuthMode, createClientIpResolver } from "@gw/auth";
import type { Sql } from "@gw/store";
import { Elysia } from "elysia";
import { authorize } from "../accounts/principal.ts";
import { ApiError } from "../errors.ts";

export interface AuthOptions {
  mode: AuthMode;
  /** Accept `x-api-key` as well as `Authorization: Bearer` (spec 5.2 lists where). */
  apiKeyHeader?: boolean;
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

function extractSecret(headers: Headers, apiKeyHeader: boolean): string | null {
  const authorization = headers.get("authorization");
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return match ? match[1]! : null;
  }
  return apiKeyHeader ? headers.get("x-api-key") : null;
}

/**
 * The `auth` macro: a route declares `{ auth: { mode: "ordinary" } }` and its handler
 * receives `principal`. The client IP comes from the socket, or from X-Forwarded-For
 * only when the socket peer is a configured trusted proxy.
 */
export function authPlugin(sql: Sql, trustedProxies: string[]) {
  const clientIpOf = createClientIpResolver(trustedProxies);
  return new Elysia({ name: "gw/auth" })
    .resolve({ as: "global" }, ({ request, server }) => ({
      clientIp: clientIpOf(server?.requestIP(request)?.address ?? null, request.headers),
    }))
    .macro({
      auth: (options: AuthOptions) => ({
        async resolve({ request, clientIp }) {
          const secret = extractSecret(request.headers, options.apiKeyHeader ?? false);
          if (!secret) throw new ApiError("invalid_api_key", MESSAGES.invalid_api_key);
          const result = await authorize(sql, secret, options.mode, clientIp);
          if (!result.ok) throw new ApiError(result.code, MESSAGES[result.code]);
          return { principal: result.principal };
        },
      }),
    });
}
