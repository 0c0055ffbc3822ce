import type { Principal } from "@gw/accounts";
import { BillingSubscription, BillingUsage, ErrorBody } from "@gw/schemas";
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { subscriptionLimit, totalUsage } from "./service.ts";

const IgnoredDates = t.Object(
  { start_date: t.Optional(t.String()), end_date: t.Optional(t.String()) },
  { description: "Accepted for old clients and ignored." },
);

/**
 * The legacy dashboard billing calls, at /v1/dashboard/... and at the site root, under
 * the general IP tier where enabled (spec 8.3).
 */
export function billingRoutes({ auth, rateLimit, config }: AppContext) {
  const settings = {
    stats: config.billingStats,
    display: config.billingDisplay,
    usdCnyRate: config.usdCnyRate,
  };
  const subscription = ({ principal }: { principal: Principal }) => {
    const limit = subscriptionLimit(principal, settings);
    return {
      object: "billing_subscription" as const,
      has_payment_method: true,
      soft_limit_usd: limit,
      hard_limit_usd: limit,
      system_hard_limit_usd: limit,
      access_until: principal.expiresAt,
    };
  };
  const usage = ({ principal }: { principal: Principal }) => ({
    object: "list" as const,
    total_usage: totalUsage(principal, settings),
  });
  const subscriptionHook = {
    auth: { mode: "ordinary" as const },
    limit: { tier: "general" as const },
    response: { 200: BillingSubscription, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
    detail: {
      tags: ["billing (legacy)"],
      summary: "Legacy subscription shape: limits are remainder + spend",
    },
  };
  const usageHook = {
    auth: { mode: "ordinary" as const },
    limit: { tier: "general" as const },
    query: IgnoredDates,
    response: { 200: BillingUsage, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
    detail: {
      tags: ["billing (legacy)"],
      summary: "Legacy usage shape: total_usage in cents (USD display)",
    },
  };
  return new Elysia({ name: "gw/routes/billing" })
    .use(auth)
    .use(rateLimit)
    .get("/v1/dashboard/billing/subscription", subscription, subscriptionHook)
    .get("/dashboard/billing/subscription", subscription, subscriptionHook)
    .get("/v1/dashboard/billing/usage", usage, usageHook)
    .get("/dashboard/billing/usage", usage, usageHook);
}
