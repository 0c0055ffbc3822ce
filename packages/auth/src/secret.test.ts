// Proves secrets have the documented shape, are unbiased and unique, and compare safely.
import { describe, expect, test } from "bun:test";
import {
  generateSecret,
  hashSecret,
  looksLikeSecret,
  secretHint,
  secretMatches,
} from "./secret.ts";

describe("generateSecret", () => {
  test("is sk- plus 48 alphanumerics", () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    expect(looksLikeSecret(secret)).toBe(true);
  });

  test("never repeats over many draws", () => {
    const draws = new Set(Array.from({ length: 10_000 }, generateSecret));
    expect(draws.size).toBe(10_000);
  });

  test("uses every character about equally often", () => {
    // 2,000 secrets give 96,000 characters, ~1,548 per symbol (σ ≈ 2.5%). Plain `byte % 62`
    // would lift the first 8 symbols by ~20%; chance alone stays inside ±15% (6σ).
    const counts = new Map<string, number>();
    for (let i = 0; i < 2_000; i++) {
      for (const ch of generateSecret().slice(3)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    expect(counts.size).toBe(62);
    const expected = (2_000 * 48) / 62;
    for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.15);
  });
});

describe("looksLikeSecret", () => {
  test.each([
    ["", false],
    ["sk-", false],
    [`sk-${"a".repeat(47)}`, false],
    [`sk-${"a".repeat(49)}`, false],
    [`sk_${"a".repeat(48)}`, false],
    [`sk-${"a".repeat(47)}-`, false],
    [`sk-${"a".repeat(48)}\n`, false],
    [`SK-${"a".repeat(48)}`, false],
    [`sk-${"aZ9".repeat(16)}`, true],
  ])("%p → %p", (input, expected) => {
    expect(looksLikeSecret(input)).toBe(expected);
  });
});

describe("hashSecret / secretMatches", () => {
  const secret = generateSecret();
  const stored = hashSecret(secret);

  test("hash is a 32-byte SHA-256 digest", () => {
    expect(stored.length).toBe(32);
    expect(hashSecret("abc").toString("hex")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });

  test("the right secret matches", () => {
    expect(secretMatches(secret, stored)).toBe(true);
    expect(secretMatches(secret, new Uint8Array(stored))).toBe(true);
  });

  test("a wrong secret does not match", () => {
    expect(secretMatches(generateSecret(), stored)).toBe(false);
    expect(secretMatches(`${secret.slice(0, -1)}!`, stored)).toBe(false);
  });

  test("a hash of the wrong length is false, not an exception", () => {
    expect(secretMatches(secret, stored.subarray(0, 31))).toBe(false);
    expect(secretMatches(secret, new Uint8Array(0))).toBe(false);
    expect(secretMatches(secret, new Uint8Array(33))).toBe(false);
  });
});

describe("secretHint", () => {
  test("shows the first 7 and last 4 characters", () => {
    const secret = `sk-abcd${"x".repeat(40)}wxyz`;
    expect(secretHint(secret)).toBe("sk-abcd…wxyz");
  });

  test("reveals nothing of a string too short to hide a middle", () => {
    expect(secretHint("sk-short")).toBe("…");
  });
});
