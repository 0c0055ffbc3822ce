import type { Usage } from "../neutral.ts";
import { given, type Json, record } from "../read.ts";
import { fromInclusiveInput, fullInputTokens, tokens } from "../usage.ts";

/**
 * Gemini usage: promptTokenCount includes cachedContentTokenCount; tool-use prompts
 * (toolUsePromptTokenCount) are input too. candidatesTokenCount excludes the thinking
 * (thoughtsTokenCount), which is billed as output, so output is their sum. Gemini
 * reports no cache writes (explicit caches are created by a separate call).
 */
export function readGenerateContentUsage(value: unknown): Usage | undefined {
  if (!given(value)) return undefined;
  const usage = record(value);
  const thoughts = tokens(usage.thoughtsTokenCount);
  return fromInclusiveInput(
    tokens(usage.promptTokenCount) + tokens(usage.toolUsePromptTokenCount),
    tokens(usage.cachedContentTokenCount),
    0,
    tokens(usage.candidatesTokenCount) + thoughts,
    thoughts,
  );
}

export function writeGenerateContentUsage(usage: Usage): Json {
  const input = fullInputTokens(usage);
  const thoughts = usage.reasoningTokens ?? 0;
  return {
    promptTokenCount: input,
    candidatesTokenCount: usage.outputTokens - thoughts,
    totalTokenCount: input + usage.outputTokens,
    ...(usage.cacheReadTokens > 0 ? { cachedContentTokenCount: usage.cacheReadTokens } : {}),
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
  };
}
