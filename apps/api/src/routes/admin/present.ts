import type { KeyRow, UserRow } from "@gw/accounts";
import type { Key, User } from "@gw/schemas";
import { quotaToUsd } from "@gw/tariffs";

/** Accounts at the edge: ids as strings, USD derived from quota, discounts as fractions. */
export function presentUser(user: UserRow): User {
  return {
    id: String(user.id),
    name: user.name,
    balance_usd: quotaToUsd(user.balance_quota),
    total_spent_usd: quotaToUsd(user.spent_quota),
    discount: user.discount_ppm / 1_000_000,
    status: user.status,
    allowed_models: user.allowed_models,
  };
}

export function presentKey(key: KeyRow): Key {
  return {
    id: String(key.id),
    user_id: String(key.user_id),
    name: key.name,
    status: key.status,
    key_hint: key.secret_hint,
    quota: key.quota_limit === null ? null : Number(key.quota_limit),
    used_quota: Number(key.used_quota),
    rpm_limit: key.rpm_limit,
    model_limits: key.model_limits,
    allowed_ips: key.allowed_ips,
    expires_at: Number(key.expires_at),
    created_at: Math.floor(key.created_at.getTime() / 1000),
  };
}
