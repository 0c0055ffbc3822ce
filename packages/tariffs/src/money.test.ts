// Proves USD and quota convert exactly both ways and refuse what quota cannot represent.
import { describe, expect, test } from "bun:test";
import { applyDiscount, fractionToPpm, quotaToUsd, usdToQuota } from "./money.ts";

describe("money", () => {
  test("published prices convert to whole quota and back to the same USD", () => {
    for (const [usd, quota] of [
      [0.045, 22_500n],
      [0.075, 37_500n],
      [0.12, 60_000n],
      [0.0011, 550n],
      [10, 5_000_000n],
      [0.000002, 1n],
    ] as const) {
      expect(usdToQuota(usd)).toEqual({ ok: true, quota });
      expect(quotaToUsd(quota)).toBe(usd);
    }
  });

  test("amounts finer than one quota unit, and non-numbers, are refused", () => {
    expect(usdToQuota(0.000001).ok).toBe(false);
    expect(usdToQuota(1.0000001).ok).toBe(false);
    expect(usdToQuota(Number.NaN).ok).toBe(false);
    expect(usdToQuota(Number.POSITIVE_INFINITY).ok).toBe(false);
    expect(usdToQuota(1e300).ok).toBe(false);
  });

  test("sums are made in quota: a thousand 0.1-dollar charges total exactly 100 dollars", () => {
    const each = (usdToQuota(0.1) as { quota: bigint }).quota;
    let total = 0n;
    for (let i = 0; i < 1000; i++) total += each;
    expect(quotaToUsd(total)).toBe(100);
  });

  test("discounts are integer parts per million", () => {
    expect(fractionToPpm(0.15)).toBe(150_000);
    expect(fractionToPpm(1.5)).toBeNull();
    expect(fractionToPpm(-0.1)).toBeNull();
    expect(applyDiscount(22_500n, 150_000)).toBe(19_125n);
    expect(applyDiscount(3n, 500_000)).toBe(2n);
  });
});
