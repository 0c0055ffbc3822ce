import type { Usage } from "../neutral.ts";
import { given, type Json, record } from "../read.ts";
import { fromInclusiveInput, fullInputTokens, tokens } from "../usage.ts";

/** Responses usage: input_tokens includes the cached and cache-written tokens it details. */
export function readResponsesUsage(value: unknown): Usage | undefined {
  if (!given(value)) return undefined;
  const usage = record(value);
  const input = record(usage.input_tokens_details);
  const output = record(usage.output_tokens_details);
  return fromInclusiveInput(
    tokens(usage.input_tokens),
    tokens(input.cached_tokens),
    tokens(input.cache_write_tokens),
    tokens(usage.output_tokens),
    tokens(output.reasoning_tokens),
  );
}

export function writeResponsesUsage(usage: Usage): Json {
  const input = fullInputTokens(usage);
  return {
    input_tokens: input,
    input_tokens_details: {
      cached_tokens: usage.cacheReadTokens,
      cache_write_tokens: usage.cacheWriteTokens,
    },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: input + usage.outputTokens,
  };
}
