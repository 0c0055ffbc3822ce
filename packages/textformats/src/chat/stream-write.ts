import type { StreamEvent, Usage } from "../neutral.ts";
import { overheadComment } from "../overhead.ts";
import type { Json } from "../read.ts";
import { DONE_FRAME, dataFrame } from "../sse/encode.ts";
import type { StreamWriteContext, StreamWriter } from "../stream-writer.ts";
import { createdAt } from "../write-context.ts";
import { writeChatFinish } from "./finish.ts";
import { writeChatUsage } from "./usage.ts";

/**
 * Chat chunks as OpenAI streams them: a first chunk with the assistant role, content and
 * tool-call deltas, a chunk with finish_reason, then, when the client asked for it, a
 * usage chunk with empty choices, and `data: [DONE]`.
 */
export function chatStreamWriter(context: StreamWriteContext = {}): StreamWriter {
  const includeUsage = context.includeUsage ?? context.request?.includeUsage ?? false;
  const created = createdAt(context);
  let id = context.id ?? "";
  let model = context.model ?? "";
  let started = false;
  let finished = false;
  let closed = false;
  let usage: Usage | undefined;

  const chunk = (delta: Json, finishReason: string | null = null, extra: Json = {}) =>
    dataFrame({
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(includeUsage ? { usage: null } : {}),
      ...extra,
    });
  const open = (): string => {
    if (started) return "";
    started = true;
    return chunk({ role: "assistant", content: "", refusal: null });
  };

  const write = (event: StreamEvent): string => {
    if (closed) return "";
    switch (event.type) {
      case "start":
        id = context.id ?? event.id;
        model = context.model ?? event.model;
        return open();
      case "text":
        return open() + chunk({ content: event.text });
      case "tool_call_start": {
        const call = { index: event.index, id: event.id, type: "function" };
        return (
          open() +
          chunk({ tool_calls: [{ ...call, function: { name: event.name, arguments: "" } }] })
        );
      }
      case "tool_call_delta":
        return (
          open() +
          chunk({ tool_calls: [{ index: event.index, function: { arguments: event.arguments } }] })
        );
      case "finish":
        if (finished) return "";
        finished = true;
        return open() + chunk({}, writeChatFinish(event.finish));
      case "usage":
        usage = event.usage;
        return "";
      case "error":
        closed = true;
        return dataFrame({
          error: { message: event.message, type: "server_error", code: "upstream_error" },
        });
    }
  };

  return {
    write,
    end(promptOverheadTokens) {
      if (closed) return "";
      let out = open();
      if (!finished) out += write({ type: "finish", finish: { reason: "stop" } });
      closed = true;
      if (includeUsage && usage)
        out += dataFrame({
          id,
          object: "chat.completion.chunk",
          created,
          model,
          choices: [],
          usage: writeChatUsage(usage),
        });
      if (promptOverheadTokens !== undefined) out += overheadComment(promptOverheadTokens);
      return out + DONE_FRAME;
    },
  };
}
