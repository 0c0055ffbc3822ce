import { createHash } from "node:crypto";

/** Output cap when the request sets none, in the offline provider's tokens (words). */
export const OFFLINE_DEFAULT_OUTPUT_TOKENS = 64;
/** Largest number a marker may carry; larger ones are read as this. */
const MAX_MARKER_TOKENS = 1_000_000_000;

/** What the prompt's `[offline:…]` markers ask of the offline text provider. */
export interface OfflineMarkers {
  fail: boolean;
  noUsage: boolean;
  /** `[offline:slow]`: a stream waits between its chunks, as a long answer would. */
  slow: boolean;
  promptOverheadTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

function count(text: string, name: string): number {
  const match = new RegExp(`\\[offline:${name}=(\\d{1,12})\\]`).exec(text);
  return match ? Math.min(Number(match[1]), MAX_MARKER_TOKENS) : 0;
}

export function readMarkers(prompt: string): OfflineMarkers {
  if (!prompt.includes("[offline:")) {
    return {
      fail: false,
      noUsage: false,
      slow: false,
      promptOverheadTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    };
  }
  return {
    fail: prompt.includes("[offline:fail]"),
    noUsage: prompt.includes("[offline:no-usage]"),
    slow: prompt.includes("[offline:slow]"),
    promptOverheadTokens: count(prompt, "prompt-overhead"),
    cacheReadTokens: count(prompt, "cache-read"),
    cacheWriteTokens: count(prompt, "cache-write"),
  };
}

/** The offline provider's token count: whitespace-separated words. */
export const offlineTokens = (text: string): number => {
  const trimmed = text.trim();
  return trimmed === "" ? 0 : trimmed.split(/\s+/).length;
};

const WORDS = [
  "amber",
  "bright",
  "calm",
  "delta",
  "ember",
  "field",
  "garden",
  "harbor",
  "island",
  "jade",
  "kindle",
  "lantern",
  "meadow",
  "north",
  "ocean",
  "pebble",
  "quiet",
  "river",
  "silver",
  "timber",
  "upland",
  "valley",
  "willow",
  "yonder",
  "zephyr",
  "acorn",
  "breeze",
  "cedar",
  "dune",
  "echo",
  "fern",
  "grove",
  "hollow",
  "iris",
  "juniper",
  "kestrel",
  "lagoon",
  "maple",
  "nectar",
  "orchard",
  "prairie",
  "quartz",
  "reed",
  "summit",
  "thistle",
  "umber",
  "violet",
  "wren",
] as const;

/** mulberry32: a small PRNG, enough to spread words; seeded from the prompt's hash. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface OfflineText {
  /** Stable per prompt: the hex of its hash, for answer ids. */
  digest: string;
  text: string;
  tokens: number;
  /** The output cap cut the text short. */
  truncated: boolean;
}

/**
 * Deterministic text from the last user text: sentences of 5 to 9 words drawn from a
 * fixed list by a PRNG seeded with the text's SHA-256, 12 to 48 words in all, cut at
 * `cap` words (the request's output cap, else 64).
 */
export function offlineText(
  lastUserText: string,
  cap = OFFLINE_DEFAULT_OUTPUT_TOKENS,
): OfflineText {
  const hash = createHash("sha256").update(lastUserText).digest();
  const next = generator(hash.readUInt32BE(0));
  const wanted = 12 + Math.floor(next() * 37);
  const limit = Math.max(0, Math.floor(cap));
  const total = Math.min(wanted, limit);
  const words: string[] = [];
  let sentenceLeft = 0;
  for (let i = 0; i < total; i++) {
    if (sentenceLeft === 0) sentenceLeft = 5 + Math.floor(next() * 5);
    let word: string = WORDS[Math.floor(next() * WORDS.length)]!;
    const opens = i === 0 || words[i - 1]!.endsWith(".");
    if (opens) word = word[0]!.toUpperCase() + word.slice(1);
    sentenceLeft--;
    if (sentenceLeft === 0 || i === total - 1) word += ".";
    words.push(word);
  }
  return {
    digest: hash.toString("hex").slice(0, 24),
    text: words.join(" "),
    tokens: total,
    truncated: wanted > limit,
  };
}
