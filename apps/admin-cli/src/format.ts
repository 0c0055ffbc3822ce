import { quotaToUsd } from "@gw/tariffs";

/**
 * USD for people: at least cents, and every further digit the amount has (the API's USD
 * figures have at most six decimals), so $0.000002 never shows as $0.00.
 */
export function formatUsd(usd: number): string {
  const sign = usd < 0 ? "-" : "";
  const fixed = Math.abs(usd)
    .toFixed(6)
    .replace(/0{1,4}$/, "");
  return `${sign}$${fixed}`;
}

/** An amount in quota units (1 USD = 500,000) as USD. */
export function formatQuota(quota: number): string {
  return formatUsd(quotaToUsd(BigInt(quota)));
}

/** Unix seconds as a UTC minute, e.g. 2030-01-31 12:00Z. */
export function formatUnix(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 16).replace("T", " ")}Z`;
}

export function formatExpiry(seconds: number): string {
  return seconds === 0 ? "never" : formatUnix(seconds);
}

export function formatDiscount(fraction: number): string {
  return fraction === 0 ? "none" : `${Number((fraction * 100).toFixed(4))}%`;
}

/** An allow-list where empty means no restriction. */
export function formatAllowList(entries: string[], empty: string): string {
  return entries.length === 0 ? empty : entries.join(", ");
}
