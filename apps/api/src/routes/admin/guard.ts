import { createHash, timingSafeEqual } from "node:crypto";
import { Elysia } from "elysia";
import { ApiError } from "../../errors.ts";

/** Every admin route lives under this prefix; the body plugin checks the token there first. */
export const ADMIN_PREFIX = "/admin/";

/**
 * Compares digests rather than the strings: both sides are 32 bytes whatever was sent,
 * so neither the comparison's time nor an early length check tells how long the token is.
 */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Refuses a request without `Authorization: Bearer $ADMIN_TOKEN`. */
export function checkAdminToken(adminToken: string | undefined, request: Request): void {
  if (!adminToken)
    throw new ApiError("admin_disabled", "The admin API is off; set ADMIN_TOKEN to enable it");
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  if (!match || !sameSecret(match[1]!, adminToken)) {
    throw new ApiError("invalid_admin_token", "Invalid or missing admin token");
  }
}

/**
 * Admits `Authorization: Bearer $ADMIN_TOKEN`; with no token configured the admin API is
 * off. The check runs as a transform hook, before Elysia validates params, query or
 * body, so an unauthenticated caller learns nothing about the schemas; a route with a
 * body was already checked before its body was read (plugins/body).
 */
export function adminGuard(adminToken: string | undefined) {
  return new Elysia({ name: "gw/admin-guard" }).onTransform({ as: "scoped" }, ({ request }) =>
    checkAdminToken(adminToken, request),
  );
}
