import type { Finish, TextPart, TextResult, ToolCallPart } from "../neutral.ts";
import { type Outcome, ok, upstreamError } from "../outcome.ts";
import { type Json, list, record, text } from "../read.ts";
import { createdAt, itemId, type WriteContext } from "../write-context.ts";
import { responseShell } from "./shell.ts";
import { readResponsesUsage } from "./usage.ts";

function outputParts(output: unknown): (TextPart | ToolCallPart)[] {
  const parts: (TextPart | ToolCallPart)[] = [];
  for (const entry of list(output)) {
    const item = record(entry);
    if (item.type === "message")
      for (const piece of list(item.content)) {
        const content = record(piece);
        const value = text(content.text) ?? text(content.refusal);
        if (value !== undefined) parts.push({ type: "text", text: value });
      }
    else if (item.type === "function_call")
      parts.push({
        type: "tool_call",
        id: String(item.call_id ?? ""),
        name: String(item.name ?? ""),
        arguments: text(item.arguments) ?? "",
      });
  }
  return parts;
}

/** The finish a response's status and incomplete_details say. */
export function readResponsesFinish(response: Json, hasToolCalls: boolean): Finish {
  if (response.status === "incomplete") {
    const reason = record(response.incomplete_details).reason;
    return { reason: reason === "content_filter" ? "content_filter" : "length" };
  }
  return { reason: hasToolCalls ? "tool_calls" : "stop" };
}

/** A response object in neutral form (reasoning and built-in tool items are not part of it). */
export function readResponsesResult(body: unknown): Outcome<TextResult> {
  const response = record(body);
  if (response.status === "failed")
    return upstreamError(
      `the response failed: ${String(record(response.error).message ?? "no reason given")}`,
    );
  if (!Array.isArray(response.output)) return upstreamError("the response has no output");
  const parts = outputParts(response.output);
  const usage = readResponsesUsage(response.usage);
  return ok({
    id: String(response.id ?? ""),
    model: String(response.model ?? ""),
    parts,
    finish: readResponsesFinish(
      response,
      parts.some((part) => part.type === "tool_call"),
    ),
    ...(usage ? { usage } : {}),
  });
}

/** The output items of an answer: consecutive text in one message item, each call an item. */
export function outputItems(result: TextResult, id: string): Json[] {
  const items: Json[] = [];
  let message: Json | undefined;
  result.parts.forEach((part, index) => {
    if (part.type === "tool_call") {
      message = undefined;
      items.push(functionCallItem(part, itemId("fc", id, index), "completed"));
      return;
    }
    if (!message) {
      message = messageItem(itemId("msg", id, index), "completed", []);
      items.push(message);
    }
    const content = message.content as Json[];
    const last = content.at(-1);
    if (last) last.text = String(last.text) + part.text;
    else content.push(outputText(part.text));
  });
  return items;
}

export const outputText = (value: string): Json => ({
  type: "output_text",
  text: value,
  annotations: [],
  logprobs: [],
});

export const messageItem = (id: string, status: string, content: Json[]): Json => ({
  id,
  type: "message",
  status,
  role: "assistant",
  content,
});

export const functionCallItem = (part: ToolCallPart, id: string, status: string): Json => ({
  id,
  type: "function_call",
  status,
  call_id: part.id,
  name: part.name,
  arguments: part.arguments,
});

/** A neutral answer as a response object (`object: "response"`). */
export function writeResponsesResult(
  result: TextResult,
  context: WriteContext = {},
): Outcome<Json> {
  const id = context.id ?? result.id;
  return ok(
    responseShell({
      id,
      model: context.model ?? result.model,
      createdAt: createdAt(context),
      request: context.request,
      output: outputItems(result, id),
      finish: result.finish,
      usage: result.usage,
    }),
  );
}
