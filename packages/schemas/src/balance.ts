import { type Static, Type } from "@sinclair/typebox";

const Usd = (description: string) => Type.Number({ description });
const Quota = (description: string) => Type.Integer({ description });

/** GET /v1/balance (spec 2.7): the owner's wallet, independent of the key's budget. */
export const Balance = Type.Object({
  balance: Usd("Wallet remainder in USD. Open holds do not lower it until they are charged."),
  total_spent: Usd("Accumulated account spend in USD."),
});
export type Balance = Static<typeof Balance>;

/** GET /api/usage/token/ (spec 2.10): the passed key's own budget, in quota units. */
export const TokenUsage = Type.Object({
  code: Type.Boolean({ description: "Success flag." }),
  message: Type.String(),
  data: Type.Object({
    object: Type.Literal("token_usage"),
    name: Type.String({ description: "Key name." }),
    total_granted: Quota(
      "Key budget in quota (1 USD = 500,000); for an unlimited key, used + available wallet.",
    ),
    total_used: Quota("Quota this key has spent."),
    total_available: Quota("Quota this key may still spend."),
    unlimited_quota: Type.Boolean({
      description: "True: the key has no separate budget (not an infinite balance).",
    }),
    rpm_limit: Type.Integer({
      description: "Requests per minute for this key; 0 means no separate limit.",
    }),
    model_limits: Type.Record(Type.String(), Type.Boolean(), { description: "Allowed models." }),
    model_limits_enabled: Type.Boolean(),
    expires_at: Type.Integer({ description: "Unix seconds; 0 means no expiry." }),
  }),
});
export type TokenUsage = Static<typeof TokenUsage>;

/** GET /v1/dashboard/billing/subscription (spec 4.7), the legacy shape. */
export const BillingSubscription = Type.Object({
  object: Type.Literal("billing_subscription"),
  has_payment_method: Type.Boolean({ description: "Compatibility flag only." }),
  soft_limit_usd: Type.Number({
    description: "Remainder + spend in the display unit; despite the name, not always USD.",
  }),
  hard_limit_usd: Type.Number(),
  system_hard_limit_usd: Type.Number(),
  access_until: Type.Integer({ description: "Unix seconds; 0 means not specified." }),
});
export type BillingSubscription = Static<typeof BillingSubscription>;

/** GET /v1/dashboard/billing/usage (spec 4.7), the legacy shape. */
export const BillingUsage = Type.Object({
  object: Type.Literal("list"),
  total_usage: Type.Number({
    description: "Spend in cents with the USD display; otherwise displayed spend x 100.",
  }),
});
export type BillingUsage = Static<typeof BillingUsage>;
