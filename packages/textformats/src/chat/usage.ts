import type { Usage } from "../neutral.ts";
import { given, type Json, record } from "../read.ts";
import { fromInclusiveInput, fullInputTokens, tokens } from "../usage.ts";

/** Chat usage: prompt_tokens includes the cached and cache-written tokens it details. */
export function readChatUsage(value: unknown): Usage | undefined {
  if (!given(value)) return undefined;
  const usage = record(value);
  const prompt = record(usage.prompt_tokens_details);
  const completion = record(usage.completion_tokens_details);
  return fromInclusiveInput(
    tokens(usage.prompt_tokens),
    tokens(prompt.cached_tokens),
    tokens(prompt.cache_write_tokens),
    tokens(usage.completion_tokens),
    tokens(completion.reasoning_tokens),
  );
}

export function writeChatUsage(usage: Usage): Json {
  const input = fullInputTokens(usage);
  return {
    prompt_tokens: input,
    completion_tokens: usage.outputTokens,
    total_tokens: input + usage.outputTokens,
    prompt_tokens_details: {
      cached_tokens: usage.cacheReadTokens,
      ...(usage.cacheWriteTokens > 0 ? { cache_write_tokens: usage.cacheWriteTokens } : {}),
    },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  };
}
