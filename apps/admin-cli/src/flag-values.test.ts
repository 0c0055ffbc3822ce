// Proves typed amounts, counts, discounts, expiries and ids become exactly the values the
// admin API takes, and that anything else is refused with a message naming the flag.
import { describe, expect, test } from "bun:test";
import { parseCount, parseDiscount, parseExpiry, parseId, parseUsd } from "./flag-values.ts";

const value = <T>(result: { ok: true; value: T } | { ok: false }) =>
  result.ok ? result.value : undefined;
const message = (result: { ok: true } | { ok: false; failure: { message: string } }) =>
  result.ok ? undefined : result.failure.message;

describe("parseUsd", () => {
  test("exact decimals to USD and quota, never through float rounding", () => {
    expect(value(parseUsd("usd", "5"))).toEqual({ usd: 5, quota: 2_500_000n });
    expect(value(parseUsd("usd", "$12.50"))).toEqual({ usd: 12.5, quota: 6_250_000n });
    expect(value(parseUsd("usd", "0.000002"))).toEqual({ usd: 0.000002, quota: 1n });
    expect(value(parseUsd("usd", "0.1"))).toEqual({ usd: 0.1, quota: 50_000n });
  });

  test("refuses what quota cannot hold, negatives, words, zero where it must be positive", () => {
    for (const input of ["0.0000001", "-1", "ten", "1e3", "", "1,5"])
      expect(message(parseUsd("usd", input))).toStartWith("--usd takes a USD amount");
    expect(message(parseUsd("usd", "0", { positive: true }))).toBe("--usd must be more than 0");
    expect(message(parseUsd("usd", "2000000000"))).toBe("--usd must be at most 1000000000 USD");
  });
});

test("parseCount takes whole numbers within the limit only", () => {
  expect(value(parseCount("rpm", "60"))).toBe(60);
  expect(value(parseCount("rpm", "0"))).toBe(0);
  for (const input of ["-1", "1.5", "ten", "2000000"])
    expect(parseCount("rpm", input).ok).toBe(false);
  expect(value(parseCount("limit", "100", 100, 1))).toBe(100);
  expect(message(parseCount("limit", "0", 100, 1))).toBe(
    "--limit takes a whole number from 1 to 100, got '0'",
  );
});

test("parseDiscount takes a fraction or a percentage, kept to six decimals", () => {
  expect(value(parseDiscount("0.1"))).toBe(0.1);
  expect(value(parseDiscount("12.5%"))).toBe(0.125);
  expect(value(parseDiscount("100%"))).toBe(1);
  for (const input of ["150%", "-0.1", "x", ""]) expect(parseDiscount(input).ok).toBe(false);
});

test("parseExpiry takes never, unix seconds or an ISO date, and refuses the past", () => {
  const now = Date.parse("2030-01-01T00:00:00Z");
  expect(value(parseExpiry("never", now))).toBe(0);
  expect(value(parseExpiry("2031-01-01", now))).toBe(1_924_992_000);
  expect(value(parseExpiry("2031-01-01T12:00:00Z", now))).toBe(1_925_035_200);
  expect(value(parseExpiry("1924992000", now))).toBe(1_924_992_000);
  expect(message(parseExpiry("2029-12-31", now))).toBe("--expires '2029-12-31' is already past");
  expect(parseExpiry("tomorrow", now).ok).toBe(false);
});

test("parseId refuses anything that is not a plain number, so no path can be altered", () => {
  expect(value(parseId("user-id", "42"))).toBe("42");
  for (const input of ["../keys", "1/credits", "1?x=1", "-1", "", "1".repeat(19)])
    expect(parseId("user-id", input).ok).toBe(false);
});
