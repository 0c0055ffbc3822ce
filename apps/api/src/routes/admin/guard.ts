import { timingSafeEqual } from "node:crypto";
import { Elysia } from "elysia";
import { ApiError } from "../../errors.ts";

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Admits `Authorization: Bearer $ADMIN_TOKEN`; with no token configured the admin API is off. */
export function adminGuard(adminToken: string | undefined) {
  return new Elysia({ name: "gw/admin-guard" }).onBeforeHandle({ as: "scoped" }, ({ request }) => {
    if (!adminToken)
      throw new ApiError("admin_disabled", "The admin API is off; set ADMIN_TOKEN to enable it");
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
    if (!match || !sameSecret(match[1]!, adminToken)) {
      throw new ApiError("invalid_admin_token", "Invalid or missing admin token");
    }
  });
}
