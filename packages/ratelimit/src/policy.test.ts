// Proves the limits are read from the environment with documented defaults, that "off"
// switches a window off, and that every malformed value is refused with a clear message.
import { describe, expect, test } from "bun:test";
import { parseDuration, parseLimitPolicy, parseWindow } from "./policy.ts";

describe("parseLimitPolicy", () => {
  test("an empty environment gives the documented defaults", () => {
    expect(parseLimitPolicy({})).toEqual({
      ok: true,
      value: {
        models: { limit: 120, windowMs: 60_000 },
        balance: { limit: 60, windowMs: 60_000 },
        blockMs: 60_000,
        critical: null,
        general: null,
        model: { limit: 300, windowMs: 60_000 },
      },
    });
  });

  test("every variable is read, and off or 0 switches its window off", () => {
    const parsed = parseLimitPolicy({
      RATE_LIMIT_MODELS: "10/1s",
      RATE_LIMIT_BALANCE: "off",
      RATE_LIMIT_IP_BLOCK: "0",
      RATE_LIMIT_CRITICAL: "20/20m",
      RATE_LIMIT_GENERAL: " 180 / 3m ",
      RATE_LIMIT_MODEL: "0",
    });
    expect(parsed).toEqual({
      ok: true,
      value: {
        models: { limit: 10, windowMs: 1000 },
        balance: null,
        blockMs: 0,
        critical: { limit: 20, windowMs: 1_200_000 },
        general: { limit: 180, windowMs: 180_000 },
        model: null,
      },
    });
  });

  test("an empty value means the default, not off", () => {
    const parsed = parseLimitPolicy({ RATE_LIMIT_BALANCE: "" });
    expect(parsed.ok && parsed.value.balance).toEqual({ limit: 60, windowMs: 60_000 });
  });

  test("a malformed value names the variable and the expected form", () => {
    for (const [name, value, fragment] of [
      ["RATE_LIMIT_MODELS", "60", '"<requests>/<duration>"'],
      ["RATE_LIMIT_BALANCE", "60/60", '"<requests>/<duration>"'],
      ["RATE_LIMIT_CRITICAL", "-1/60s", '"<requests>/<duration>"'],
      ["RATE_LIMIT_GENERAL", "2000000/1s", "1 to 1000000"],
      ["RATE_LIMIT_MODEL", "5/48h", "1ms to 24h"],
      ["RATE_LIMIT_MODEL", "5/0s", "1ms to 24h"],
      ["RATE_LIMIT_IP_BLOCK", "forever", 'such as "60s"'],
    ] as const) {
      const parsed = parseLimitPolicy({ [name]: value });
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) {
        expect(parsed.error).toStartWith(name);
        expect(parsed.error).toContain(fragment);
      }
    }
  });
});

test("durations and windows in every unit", () => {
  expect(["250ms", "2s", "3m", "1h"].map(parseDuration)).toEqual([250, 2000, 180_000, 3_600_000]);
  expect(parseDuration("1d")).toBeNull();
  expect(parseWindow("X", "5/250ms")).toEqual({ ok: true, value: { limit: 5, windowMs: 250 } });
  expect(parseWindow("X", "OFF")).toEqual({ ok: true, value: null });
});
