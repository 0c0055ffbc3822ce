import type { Finish, FinishReason } from "../neutral.ts";

const READ: Record<string, FinishReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
};

export function readMessagesFinish(reason: unknown, stopSequence: unknown): Finish {
  return {
    reason: READ[String(reason)] ?? "other",
    ...(typeof stopSequence === "string" ? { stopSequence } : {}),
  };
}

/** Messages has no "other": an unnamed upstream reason reads as the end of the turn. */
export function writeMessagesFinish(finish: Finish): string {
  switch (finish.reason) {
    case "stop":
      return finish.stopSequence !== undefined ? "stop_sequence" : "end_turn";
    case "length":
      return "max_tokens";
    case "tool_calls":
      return "tool_use";
    case "content_filter":
      return "refusal";
    default:
      return "end_turn";
  }
}
