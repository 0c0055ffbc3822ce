import { expect, test } from "bun:test";
import { textPriceQuota } from "./text.ts";

const prices = {
  input_per_m: "1.25",
  output_per_m: "10",
  cache_read_per_m: "0.125",
  cache_write_per_m: "1.5625",
};
const none = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

test("each kind of token at its own rate, summed exactly and rounded up once", () => {
  // 1,000,000 input tokens at $1.25/M = $1.25 = 625,000 quota.
  expect(textPriceQuota(prices, { ...none, input: 1_000_000 })).toBe(625_000n);
  // 1 input token = $0.00000125 = 0.625 quota: rounded up to 1.
  expect(textPriceQuota(prices, { ...none, input: 1 })).toBe(1n);
  // 3 tokens of each: 3 × (1.25 + 10 + 0.125 + 1.5625) / 1e6 USD = 0.0000388125 USD = 19.40625 quota → 20.
  expect(textPriceQuota(prices, { input: 3, output: 3, cacheRead: 3, cacheWrite: 3 })).toBe(20n);
  // Rounding happens on the total, not per kind: 1 input (0.625) + 1 cache read (0.0625) → 1, not 2.
  expect(textPriceQuota(prices, { ...none, input: 1, cacheRead: 1 })).toBe(1n);
});

test("the discount applies to the exact total before the one rounding", () => {
  // 1000 output tokens = $0.01 = 5,000 quota; 15% off = 4,250.
  expect(textPriceQuota(prices, { ...none, output: 1000 }, 150_000)).toBe(4_250n);
  // 1 output token = 5 quota; 33.3333% off = 3.333335 → 4.
  expect(textPriceQuota(prices, { ...none, output: 1 }, 333_333)).toBe(4n);
  expect(textPriceQuota(prices, { ...none, output: 1000 }, 1_000_000)).toBe(0n);
});

test("cache tokens without a rate of their own are priced as input", () => {
  const plain = { input_per_m: "0.15", output_per_m: "0.6" };
  expect(textPriceQuota(plain, { ...none, cacheRead: 1_000_000, cacheWrite: 1_000_000 })).toBe(
    150_000n,
  );
});
