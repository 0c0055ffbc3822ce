import type { Usage } from "./neutral.ts";

/** The full reported input: uncached input plus cache reads and writes (a record's prompt_tokens). */
export const fullInputTokens = (usage: Usage): number =>
  usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;

export const totalTokens = (usage: Usage): number => fullInputTokens(usage) + usage.outputTokens;

export const ZERO_USAGE: Usage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
};

/** A count an upstream reported, read defensively: absent, negative or fractional counts as 0. */
export const tokens = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;

/**
 * Usage from an "input including cached" report (OpenAI's prompt_tokens and input_tokens,
 * Gemini's promptTokenCount): the cached and cache-written parts are carved out of the total.
 */
export function fromInclusiveInput(
  totalInput: number,
  cacheRead: number,
  cacheWrite: number,
  output: number,
  reasoning?: number,
): Usage {
  return {
    inputTokens: Math.max(0, totalInput - cacheRead - cacheWrite),
    outputTokens: output,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    ...(reasoning ? { reasoningTokens: reasoning } : {}),
  };
}
