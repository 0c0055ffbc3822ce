import type { TextPart, TextResult, ToolCallPart } from "../neutral.ts";
import { type Outcome, ok, upstreamError } from "../outcome.ts";
import { compact, isRecord, type Json, list, record, text } from "../read.ts";
import { createdAt, type WriteContext } from "../write-context.ts";
import { readChatFinish, writeChatFinish } from "./finish.ts";
import { readChatUsage, writeChatUsage } from "./usage.ts";

/** A chat completion (first choice) in neutral form. */
export function readChatResult(body: unknown): Outcome<TextResult> {
  const answer = record(body);
  const choice = list(answer.choices)[0];
  if (!isRecord(choice)) return upstreamError("the chat completion has no choices");
  const message = record(choice.message);
  const parts: (TextPart | ToolCallPart)[] = [];
  const content = text(message.content) ?? text(message.refusal);
  if (content) parts.push({ type: "text", text: content });
  for (const item of list(message.tool_calls)) {
    const call = record(item);
    const fn = record(call.function);
    parts.push({
      type: "tool_call",
      id: String(call.id ?? ""),
      name: String(fn.name ?? ""),
      arguments: text(fn.arguments) ?? "",
    });
  }
  const usage = readChatUsage(answer.usage);
  return ok({
    id: String(answer.id ?? ""),
    model: String(answer.model ?? ""),
    parts,
    finish: readChatFinish(choice.finish_reason),
    ...(usage ? { usage } : {}),
  });
}

/** A neutral answer as a chat completion (`object: "chat.completion"`). */
export function writeChatResult(result: TextResult, context: WriteContext = {}): Outcome<Json> {
  const texts = result.parts.filter((part) => part.type === "text");
  const calls = result.parts.filter((part) => part.type === "tool_call");
  const message: Json = {
    role: "assistant",
    content: texts.length > 0 ? texts.map((part) => part.text).join("") : null,
    refusal: null,
    annotations: [],
  };
  if (calls.length > 0)
    message.tool_calls = calls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  return ok(
    compact({
      id: context.id ?? result.id,
      object: "chat.completion",
      created: createdAt(context),
      model: context.model ?? result.model,
      choices: [
        { index: 0, message, logprobs: null, finish_reason: writeChatFinish(result.finish) },
      ],
      usage: result.usage ? writeChatUsage(result.usage) : undefined,
    }),
  );
}
