import type { StreamEvent, Usage } from "../neutral.ts";
import { given, record } from "../read.ts";
import type { SseFrame } from "../sse/decoder.ts";
import { type FrameReader, frameJson } from "../stream-parser.ts";
import { tokens } from "../usage.ts";
import { readMessagesFinish } from "./finish.ts";
import { readMessagesUsage } from "./usage.ts";

/**
 * message_delta usage: output_tokens is the running total; input and cache counters,
 * when present, are whole-message totals that replace those of message_start.
 */
function mergeUsage(base: Usage | undefined, delta: unknown): Usage {
  const next = record(delta);
  const merged: Usage = {
    inputTokens: base?.inputTokens ?? 0,
    outputTokens: tokens(next.output_tokens),
    cacheReadTokens: base?.cacheReadTokens ?? 0,
    cacheWriteTokens: base?.cacheWriteTokens ?? 0,
  };
  if (given(next.input_tokens)) merged.inputTokens = tokens(next.input_tokens);
  if (given(next.cache_read_input_tokens))
    merged.cacheReadTokens = tokens(next.cache_read_input_tokens);
  if (given(next.cache_creation_input_tokens))
    merged.cacheWriteTokens = tokens(next.cache_creation_input_tokens);
  const thinking = tokens(record(next.output_tokens_details).thinking_tokens);
  if (thinking) merged.reasoningTokens = thinking;
  return merged;
}

/** Messages events: message_start, content blocks by index, message_delta, message_stop. */
export function messagesFrameReader(): FrameReader {
  let usage: Usage | undefined;
  const tools = new Map<number, number>();
  return {
    frame(frame: SseFrame): StreamEvent[] {
      const event = frameJson(frame);
      if (!event) return [];
      switch (event.type) {
        case "message_start": {
          const message = record(event.message);
          usage = readMessagesUsage(message.usage);
          const start: StreamEvent = {
            type: "start",
            id: String(message.id ?? ""),
            model: String(message.model ?? ""),
          };
          return usage ? [start, { type: "usage", usage }] : [start];
        }
        case "content_block_start": {
          const block = record(event.content_block);
          if (block.type === "text" && typeof block.text === "string" && block.text !== "")
            return [{ type: "text", text: block.text }];
          if (block.type !== "tool_use") return [];
          const index = tools.size;
          tools.set(Number(event.index), index);
          const id = String(block.id ?? "");
          return [{ type: "tool_call_start", index, id, name: String(block.name ?? "") }];
        }
        case "content_block_delta": {
          const delta = record(event.delta);
          if (delta.type === "text_delta" && typeof delta.text === "string")
            return [{ type: "text", text: delta.text }];
          const index = tools.get(Number(event.index));
          if (delta.type !== "input_json_delta" || index === undefined) return [];
          return [{ type: "tool_call_delta", index, arguments: String(delta.partial_json ?? "") }];
        }
        case "message_delta": {
          const delta = record(event.delta);
          usage = mergeUsage(usage, event.usage);
          const finish = readMessagesFinish(delta.stop_reason, delta.stop_sequence);
          return [
            { type: "finish", finish },
            { type: "usage", usage },
          ];
        }
        case "error":
          return [
            { type: "error", message: String(record(event.error).message ?? "upstream error") },
          ];
        default:
          return [];
      }
    },
  };
}
