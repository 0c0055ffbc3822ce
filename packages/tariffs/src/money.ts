/** 1 USD is 500,000 quota units; every amount inside the gateway is a bigint of quota. */
export const QUOTA_PER_USD = 500_000n;
const QUOTA_PER_USD_NUMBER = 500_000;

/**
 * Quota as a USD number for responses. One division of an exact integer: the result is
 * the double nearest to a decimal of at most six places, so JSON prints it exactly.
 * Sums are always made in quota first; USD figures are never added together.
 */
export function quotaToUsd(quota: bigint): number {
  return Number(quota) / QUOTA_PER_USD_NUMBER;
}

export type UsdParse = { ok: true; quota: bigint } | { ok: false; reason: string };

/**
 * A USD amount from a client as quota. Refuses what quota cannot represent exactly
 * (finer than $0.000002) rather than rounding money silently.
 */
export function usdToQuota(usd: number): UsdParse {
  if (!Number.isFinite(usd)) return { ok: false, reason: "must be a finite number" };
  const quota = Math.round(usd * QUOTA_PER_USD_NUMBER);
  if (!Number.isSafeInteger(quota)) return { ok: false, reason: "is too large" };
  if (quota / QUOTA_PER_USD_NUMBER !== usd) {
    return { ok: false, reason: "has more precision than $0.000002 (one quota unit)" };
  }
  return { ok: true, quota: BigInt(quota) };
}

/** Parts per million, the integer form of a discount fraction such as 0.15. */
export const PPM = 1_000_000n;

export function fractionToPpm(fraction: number): number | null {
  if (!Number.isFinite(fraction) || fraction < 0 || fraction > 1) return null;
  const ppm = Math.round(fraction * 1_000_000);
  return ppm / 1_000_000 === fraction ? ppm : null;
}

/** Applies a discount to a quota amount, rounding the discount down: never undercharges by rounding in the client's favour twice. */
export function applyDiscount(amountQuota: bigint, discountPpm: number): bigint {
  return amountQuota - (amountQuota * BigInt(discountPpm)) / PPM;
}

/**
 * A USD decimal string from the catalog ("0.0011") as exact quota. Parsed digit by digit,
 * never through a float; null when the amount is finer than one quota unit.
 */
export function usdTextToQuota(text: string): bigint | null {
  const match = /^([0-9]{1,12})(?:\.([0-9]{1,12}))?$/.exec(text);
  if (!match) return null;
  const fraction = match[2] ?? "";
  const scale = 10n ** BigInt(fraction.length);
  const micro = BigInt(match[1]!) * scale + BigInt(fraction || "0");
  const quota = micro * QUOTA_PER_USD;
  return quota % scale === 0n ? quota / scale : null;
}
