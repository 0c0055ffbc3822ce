import type { Principal } from "@gw/accounts";
import { ErrorBody, TokenUsage } from "@gw/schemas";
import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";

/**
 * The key's budget in quota. A key without a budget spends the owner's wallet, so its
 * available amount is the wallet balance and its grant is what it used plus that.
 */
export function tokenUsage(principal: Principal): TokenUsage {
  const unlimited = principal.quotaLimit === null;
  const used = principal.usedQuota;
  const available = unlimited
    ? principal.balanceQuota > 0n
      ? principal.balanceQuota
      : 0n
    : principal.quotaLimit! > used
      ? principal.quotaLimit! - used
      : 0n;
  const granted = unlimited ? used + available : principal.quotaLimit!;
  return {
    code: true,
    message: "ok",
    data: {
      object: "token_usage",
      name: principal.keyName,
      total_granted: Number(granted),
      total_used: Number(used),
      total_available: Number(available),
      unlimited_quota: unlimited,
      rpm_limit: principal.rpmLimit,
      model_limits: Object.fromEntries(principal.modelLimits.map((model) => [model, true])),
      model_limits_enabled: principal.modelLimits.length > 0,
      expires_at: principal.expiresAt,
    },
  };
}

/**
 * GET /api/usage/token/: read-only authorization, so a disabled, expired or exhausted key
 * may look; the critical IP tier where enabled (spec 8.3).
 */
export function usageRoutes({ auth, rateLimit }: AppContext) {
  return new Elysia({ name: "gw/routes/usage" })
    .use(auth)
    .use(rateLimit)
    .get("/api/usage/token/", ({ principal }) => tokenUsage(principal), {
      auth: { mode: "read_only" },
      limit: { tier: "critical" },
      response: { 200: TokenUsage, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
      detail: {
        tags: ["usage"],
        summary: "Budget, spend and limits of the passed key (quota units)",
      },
    });
}
