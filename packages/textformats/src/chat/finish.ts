import type { Finish, FinishReason } from "../neutral.ts";

const READ: Record<string, FinishReason> = {
  stop: "stop",
  length: "length",
  tool_calls: "tool_calls",
  function_call: "tool_calls",
  content_filter: "content_filter",
};

export const readChatFinish = (reason: unknown): Finish => ({
  reason: READ[String(reason)] ?? "other",
});

/** Chat has no "other": an unnamed upstream reason reads as a normal stop. */
export const writeChatFinish = (finish: Finish): string =>
  finish.reason === "other" ? "stop" : finish.reason;
