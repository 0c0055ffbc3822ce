import type { Finish, FinishReason } from "../neutral.ts";

const FILTERED = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
  "IMAGE_RECITATION",
]);

/** Gemini ends a turn with function calls as STOP; the calls make it a tool_calls finish. */
export function readGenerateContentFinish(reason: unknown, hasToolCalls: boolean): Finish {
  const name = String(reason);
  let read: FinishReason = "other";
  if (name === "STOP") read = hasToolCalls ? "tool_calls" : "stop";
  else if (name === "MAX_TOKENS") read = "length";
  else if (FILTERED.has(name)) read = "content_filter";
  return { reason: read };
}

const WRITE: Record<FinishReason, string> = {
  stop: "STOP",
  length: "MAX_TOKENS",
  tool_calls: "STOP",
  content_filter: "SAFETY",
  other: "OTHER",
};

export const writeGenerateContentFinish = (finish: Finish): string => WRITE[finish.reason];
