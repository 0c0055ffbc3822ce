import type { Principal } from "@gw/accounts";
import { QUOTA_PER_USD } from "@gw/tariffs";
import type { BillingDisplay, BillingStats } from "../../config.ts";

/** What an unlimited key reports as its limit on the legacy subscription call. */
export const NOMINAL_UNLIMITED = 100_000_000;

export interface LegacyBillingSettings {
  stats: BillingStats;
  display: BillingDisplay;
  usdCnyRate: number;
}

/** Quota in the configured display unit: USD, CNY at the configured rate, or raw quota. */
function display(quota: bigint, settings: LegacyBillingSettings): number {
  if (settings.display === "TOKENS") return Number(quota);
  const usd = Number(quota) / Number(QUOTA_PER_USD);
  return settings.display === "CNY" ? Math.round(usd * settings.usdCnyRate * 1e6) / 1e6 : usd;
}

/**
 * The limit the legacy subscription call reports: remainder + spend. With key
 * statistics that is the key's budget (or the nominal 100000000 for an unlimited key);
 * with account statistics, the wallet balance plus the account's total spend.
 */
export function subscriptionLimit(principal: Principal, settings: LegacyBillingSettings): number {
  if (settings.stats === "key") {
    if (principal.quotaLimit === null) return NOMINAL_UNLIMITED;
    return display(principal.quotaLimit, settings);
  }
  return display(principal.balanceQuota + principal.spentQuota, settings);
}

/** Spend x 100: cents with the USD display, otherwise the displayed spend times 100. */
export function totalUsage(principal: Principal, settings: LegacyBillingSettings): number {
  const spent = settings.stats === "key" ? principal.usedQuota : principal.spentQuota;
  if (settings.display === "USD") return Number(spent) / Number(QUOTA_PER_USD / 100n);
  return Math.round(display(spent, settings) * 100 * 1e6) / 1e6;
}
