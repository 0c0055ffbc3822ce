import type { TextPrices } from "../catalog/spec.ts";
import { PPM, QUOTA_PER_USD } from "../money.ts";

/** Tokens of one text call by what they are priced as; the four never overlap. */
export interface TextTokens {
  /** Input read fresh (not from the provider's cache). */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** USD per million tokens as an exact integer of 10^-12 USD. */
function perMillion(text: string): bigint {
  const match = /^([0-9]{1,9})(?:\.([0-9]{1,12}))?$/.exec(text);
  if (!match) throw new RangeError(`not a USD decimal: ${text}`);
  const fraction = (match[2] ?? "").padEnd(12, "0");
  return BigInt(match[1]!) * 10n ** 12n + BigInt(fraction);
}

const SCALE = 10n ** 12n * 1_000_000n;

function tokens(count: number): bigint {
  if (!Number.isSafeInteger(count) || count < 0)
    throw new RangeError(`not a token count: ${count}`);
  return BigInt(count);
}

/**
 * The exact price of a text call in quota: each kind of token at its rate (cache reads
 * and writes at the input rate where the model has no rate of their own), then the
 * account discount, computed on exact integers and rounded once, up, to a whole quota
 * unit on the total.
 */
export function textPriceQuota(prices: TextPrices, used: TextTokens, discountPpm = 0): bigint {
  const input = perMillion(prices.input_per_m);
  const sum =
    tokens(used.input) * input +
    tokens(used.output) * perMillion(prices.output_per_m) +
    tokens(used.cacheRead) *
      (prices.cache_read_per_m ? perMillion(prices.cache_read_per_m) : input) +
    tokens(used.cacheWrite) *
      (prices.cache_write_per_m ? perMillion(prices.cache_write_per_m) : input);
  // sum is 10^-12 USD per million tokens × tokens; quota = sum × 500,000 / 10^18.
  const numerator = sum * QUOTA_PER_USD * (PPM - BigInt(discountPpm));
  const denominator = SCALE * PPM;
  return (numerator + denominator - 1n) / denominator;
}
