import type { Usage } from "../neutral.ts";
import { given, type Json, record } from "../read.ts";
import { tokens } from "../usage.ts";

/**
 * Messages usage: input_tokens excludes cache_read_input_tokens and
 * cache_creation_input_tokens, which is the neutral meaning already.
 */
export function readMessagesUsage(value: unknown): Usage | undefined {
  if (!given(value)) return undefined;
  const usage = record(value);
  const reasoning = tokens(record(usage.output_tokens_details).thinking_tokens);
  return {
    inputTokens: tokens(usage.input_tokens),
    outputTokens: tokens(usage.output_tokens),
    cacheReadTokens: tokens(usage.cache_read_input_tokens),
    cacheWriteTokens: tokens(usage.cache_creation_input_tokens),
    ...(reasoning ? { reasoningTokens: reasoning } : {}),
  };
}

export const writeMessagesUsage = (usage: Usage): Json => ({
  input_tokens: usage.inputTokens,
  cache_creation_input_tokens: usage.cacheWriteTokens,
  cache_read_input_tokens: usage.cacheReadTokens,
  output_tokens: usage.outputTokens,
});
