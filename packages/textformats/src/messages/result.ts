import { answerArguments, argumentsText } from "../arguments.ts";
import type { TextPart, TextResult, ToolCallPart } from "../neutral.ts";
import { type Outcome, ok, upstreamError } from "../outcome.ts";
import { type Json, record } from "../read.ts";
import { ZERO_USAGE } from "../usage.ts";
import type { WriteContext } from "../write-context.ts";
import { readMessagesFinish, writeMessagesFinish } from "./finish.ts";
import { readMessagesUsage, writeMessagesUsage } from "./usage.ts";

/** A message (the answer of the messages API) in neutral form; thinking blocks are not text. */
export function readMessagesResult(body: unknown): Outcome<TextResult> {
  const message = record(body);
  if (!Array.isArray(message.content)) return upstreamError("the message has no content");
  const parts: (TextPart | ToolCallPart)[] = [];
  for (const entry of message.content) {
    const block = record(entry);
    if (block.type === "text" && typeof block.text === "string")
      parts.push({ type: "text", text: block.text });
    else if (block.type === "tool_use")
      parts.push({
        type: "tool_call",
        id: String(block.id ?? ""),
        name: String(block.name ?? ""),
        arguments: argumentsText(block.input),
      });
  }
  const usage = readMessagesUsage(message.usage);
  return ok({
    id: String(message.id ?? ""),
    model: String(message.model ?? ""),
    parts,
    finish: readMessagesFinish(message.stop_reason, message.stop_sequence),
    ...(usage ? { usage } : {}),
  });
}

/** A neutral answer as a message (`type: "message"`). */
export function writeMessagesResult(result: TextResult, context: WriteContext = {}): Outcome<Json> {
  const content: Json[] = [];
  for (const part of result.parts) {
    if (part.type === "text") {
      if (part.text !== "") content.push({ type: "text", text: part.text });
      continue;
    }
    const input = answerArguments(part.arguments, part.name);
    if (!input.ok) return input;
    content.push({ type: "tool_use", id: part.id, name: part.name, input: input.value });
  }
  return ok({
    id: context.id ?? result.id,
    type: "message",
    role: "assistant",
    model: context.model ?? result.model,
    content,
    stop_reason: writeMessagesFinish(result.finish),
    stop_sequence: result.finish.stopSequence ?? null,
    // The messages API always reports usage; with none from the upstream, zeros.
    usage: writeMessagesUsage(result.usage ?? ZERO_USAGE),
  });
}
