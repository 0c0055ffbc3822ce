import { usdTextToQuota } from "@gw/tariffs";
import { ok, type Result, usage } from "./failure.ts";

/** Largest USD amount the admin API accepts in a body (its schemas' maximum). */
const MAX_USD = 1e9;

export interface Usd {
  /** As the API's `*_usd` body fields take it. */
  usd: number;
  /** Exact, for fields in quota units (1 USD = 500,000). */
  quota: bigint;
}

/**
 * A USD amount typed by a person ("5", "12.50", "$0.25"), parsed digit by digit so no
 * float rounding ever changes money; finer than one quota unit ($0.000002) is refused.
 */
export function parseUsd(flag: string, input: string, options: { positive?: boolean } = {}) {
  const digits = input.trim().replace(/^\$/, "");
  const quota = usdTextToQuota(digits);
  if (quota === null)
    return usage<Usd>(
      `--${flag} takes a USD amount such as 5 or 12.50 (at most 6 decimals), got '${input}'`,
    );
  const usd = Number(digits);
  if (options.positive && quota === 0n) return usage<Usd>(`--${flag} must be more than 0`);
  if (usd > MAX_USD) return usage<Usd>(`--${flag} must be at most ${MAX_USD} USD`);
  return ok<Usd>({ usd, quota });
}

/** A whole number from `min` (default 0) to `max`, such as a requests-per-minute limit. */
export function parseCount(flag: string, input: string, max = 1_000_000, min = 0): Result<number> {
  if (!/^[0-9]{1,9}$/.test(input) || Number(input) > max || Number(input) < min)
    return usage(`--${flag} takes a whole number from ${min} to ${max}, got '${input}'`);
  return ok(Number(input));
}

/** A discount as a fraction (0.1) or a percentage (10%), 0 to 1. */
export function parseDiscount(input: string): Result<number> {
  const percent = input.endsWith("%");
  const number = Number(percent ? input.slice(0, -1) : input);
  const fraction = percent ? number / 100 : number;
  if (input.trim() === "" || !Number.isFinite(fraction) || fraction < 0 || fraction > 1)
    return usage(`--discount takes a fraction from 0 to 1 or a percentage (10%), got '${input}'`);
  // Keep the six decimals the API accepts: 12.5% is 0.125, not 0.12500000000000003.
  return ok(Math.round(fraction * 1_000_000) / 1_000_000);
}

/**
 * An expiry as unix seconds: `never` (0), unix seconds, or an ISO date or date-time
 * (a bare date means its start, UTC). A moment already past is refused: it makes a dead key.
 */
export function parseExpiry(input: string, nowMs = Date.now()): Result<number> {
  if (input === "never" || input === "0") return ok(0);
  const seconds = /^[0-9]{1,11}$/.test(input)
    ? Number(input)
    : /^\d{4}-\d{2}-\d{2}/.test(input)
      ? Math.floor(Date.parse(input) / 1000)
      : Number.NaN;
  if (!Number.isFinite(seconds))
    return usage(`--expires takes never, unix seconds or an ISO date (2030-01-31), got '${input}'`);
  if (seconds * 1000 <= nowMs) return usage(`--expires '${input}' is already past`);
  return ok(seconds);
}

/** A numeric id, checked here so no argument can change the path it is put into. */
export function parseId(name: string, input: string): Result<string> {
  if (!/^[0-9]{1,18}$/.test(input)) return usage(`<${name}> is a number, got '${input}'`);
  return ok(input);
}
