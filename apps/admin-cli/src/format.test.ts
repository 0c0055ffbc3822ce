// Proves USD, dates and discounts read the way the api means them: no amount is rounded
// away, and quota figures show in USD.
import { expect, test } from "bun:test";
import { formatDiscount, formatExpiry, formatQuota, formatUnix, formatUsd } from "./format.ts";

test("USD shows cents and every further digit the amount has", () => {
  expect(formatUsd(12.5)).toBe("$12.50");
  expect(formatUsd(0)).toBe("$0.00");
  expect(formatUsd(12.575)).toBe("$12.575");
  expect(formatUsd(0.000002)).toBe("$0.000002");
  expect(formatUsd(-1.5)).toBe("-$1.50");
  expect(formatQuota(2_500_000)).toBe("$5.00");
  expect(formatQuota(1)).toBe("$0.000002");
});

test("dates are UTC minutes; 0 is never; discounts are percentages", () => {
  expect(formatUnix(1_924_992_000)).toBe("2031-01-01 00:00Z");
  expect(formatExpiry(0)).toBe("never");
  expect(formatDiscount(0)).toBe("none");
  expect(formatDiscount(0.125)).toBe("12.5%");
  expect(formatDiscount(0.1)).toBe("10%");
});
