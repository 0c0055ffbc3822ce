// Proves signed links verify only for the exact key and expiry they were signed for,
// expire on time, refuse malformed or overlong parts, and that the TTL setting is parsed
// with a 13-day default and maximum.
import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import {
  LINK_CLOCK_SKEW_SECONDS,
  linkTtlFromEnv,
  MAX_LINK_TTL_SECONDS,
  signLink,
  verifyLink,
} from "./links.ts";

const SECRET = "0123456789abcdef0123456789abcdef";
const NOW = 1_750_000_000;
const KEY = "results/task_1/0.png";

/** Splits a signed path into what the file route would see. */
function parts(link: string) {
  const url = new URL(link, "http://gateway.test");
  return {
    key: decodeURIComponent(url.pathname.slice("/v1/files/".length)),
    expires: url.searchParams.get("expires"),
    signature: url.searchParams.get("signature"),
  };
}

function check(link: string, now = NOW, secret: string | Uint8Array = SECRET) {
  const { key, expires, signature } = parts(link);
  return verifyLink(secret, key, expires, signature, now);
}

describe("signLink", () => {
  test("produces the documented path and HMAC", () => {
    const link = signLink(SECRET, KEY, NOW + 60);
    const hmac = createHmac("sha256", SECRET)
      .update(`${KEY}\n${NOW + 60}`)
      .digest("base64url");
    expect(link).toBe(`/v1/files/${KEY}?expires=${NOW + 60}&signature=${hmac}`);
  });

  test("accepts byte secrets and gives the same link as the equal string", () => {
    const bytes = new TextEncoder().encode(SECRET);
    expect(signLink(bytes, KEY, NOW + 60)).toBe(signLink(SECRET, KEY, NOW + 60));
  });

  test("refuses bad keys, bad expiries and short secrets", () => {
    expect(() => signLink(SECRET, "../x", NOW)).toThrow(RangeError);
    expect(() => signLink(SECRET, KEY, 0)).toThrow(RangeError);
    expect(() => signLink(SECRET, KEY, 1.5)).toThrow(RangeError);
    expect(() => signLink(SECRET, KEY, Number.NaN)).toThrow(RangeError);
    expect(() => signLink("short", KEY, NOW)).toThrow(RangeError);
  });
});

describe("verifyLink", () => {
  test("a fresh link is valid until its expiry", () => {
    const link = signLink(SECRET, KEY, NOW + 3600);
    expect(check(link)).toEqual({ ok: true });
    expect(check(link, NOW + 3599)).toEqual({ ok: true });
    expect(check(link, NOW + 3600)).toEqual({ ok: false, code: "expired" });
    expect(check(link, NOW + 10 * 86400)).toEqual({ ok: false, code: "expired" });
  });

  test("a link for the maximum TTL is valid, even from a signer slightly ahead", () => {
    expect(check(signLink(SECRET, KEY, NOW + MAX_LINK_TTL_SECONDS))).toEqual({ ok: true });
    const ahead = NOW + MAX_LINK_TTL_SECONDS + LINK_CLOCK_SKEW_SECONDS;
    expect(check(signLink(SECRET, KEY, ahead))).toEqual({ ok: true });
  });

  test("an expiry beyond the maximum TTL is malformed even when signed", () => {
    const link = signLink(SECRET, KEY, NOW + MAX_LINK_TTL_SECONDS + LINK_CLOCK_SKEW_SECONDS + 1);
    expect(check(link)).toEqual({ ok: false, code: "malformed" });
  });

  test("tampering with the key, expiry or signature breaks the signature", () => {
    const { key, expires, signature } = parts(signLink(SECRET, KEY, NOW + 3600));
    const bad = { ok: false, code: "bad_signature" } as const;
    expect(verifyLink(SECRET, "results/task_1/1.png", expires, signature, NOW)).toEqual(bad);
    expect(verifyLink(SECRET, key, String(NOW + 3601), signature, NOW)).toEqual(bad);
    const flipped = `${signature![0] === "A" ? "B" : "A"}${signature!.slice(1)}`;
    expect(verifyLink(SECRET, key, expires, flipped, NOW)).toEqual(bad);
    expect(verifyLink(`${SECRET}x`, key, expires, signature, NOW)).toEqual(bad);
  });

  test("a tampered expiry in the past is a bad signature, not expired", () => {
    const { key, signature } = parts(signLink(SECRET, KEY, NOW + 3600));
    expect(verifyLink(SECRET, key, String(NOW - 1), signature, NOW)).toEqual({
      ok: false,
      code: "bad_signature",
    });
  });

  test("missing or malformed parts are malformed", () => {
    const { key, expires, signature } = parts(signLink(SECRET, KEY, NOW + 3600));
    const malformed = { ok: false, code: "malformed" } as const;
    const cases: [string, string | null, string | null][] = [
      [key, null, signature],
      [key, expires, null],
      [key, "", signature],
      [key, "-5", signature],
      [key, "0", signature],
      [key, `0${expires}`, signature],
      [key, `${expires}.0`, signature],
      [key, "1e9", signature],
      [key, " 1750003600", signature],
      [key, "9".repeat(13), signature],
      [key, expires, `${signature}=`],
      [key, expires, signature!.slice(1)],
      [key, expires, `${signature!.slice(1)}+`],
      [key, expires, ""],
      ["../etc/passwd", expires, signature],
      ["/results/task_1/0.png", expires, signature],
      ["", expires, signature],
    ];
    for (const [k, e, s] of cases) expect(verifyLink(SECRET, k, e, s, NOW)).toEqual(malformed);
  });
});

describe("linkTtlFromEnv", () => {
  test("defaults to the 13-day maximum", () => {
    expect(MAX_LINK_TTL_SECONDS).toBe(13 * 24 * 3600);
    expect(linkTtlFromEnv(undefined)).toBe(MAX_LINK_TTL_SECONDS);
    expect(linkTtlFromEnv("")).toBe(MAX_LINK_TTL_SECONDS);
  });

  test("accepts a shorter whole number of seconds", () => {
    expect(linkTtlFromEnv("3600")).toBe(3600);
    expect(linkTtlFromEnv(" 1 ")).toBe(1);
    expect(linkTtlFromEnv(String(MAX_LINK_TTL_SECONDS))).toBe(MAX_LINK_TTL_SECONDS);
  });

  test("refuses zero, fractions, negatives, words and anything above 13 days", () => {
    for (const value of ["0", "-1", "1.5", "1e3", "abc", "10s", String(MAX_LINK_TTL_SECONDS + 1)]) {
      expect(() => linkTtlFromEnv(value)).toThrow(/RESULT_LINK_TTL_SECONDS/);
    }
  });
});
