import type { StreamEvent } from "../neutral.ts";
import { given, isRecord, list, record, text } from "../read.ts";
import type { SseFrame } from "../sse/decoder.ts";
import { type FrameReader, frameJson } from "../stream-parser.ts";
import { readChatFinish } from "./finish.ts";
import { readChatUsage } from "./usage.ts";

/**
 * Chat chunks: the first names the answer; deltas carry text and tool-call pieces keyed
 * by the upstream's tool index; a chunk with `finish_reason` finishes; a chunk with
 * `usage` (asked for by stream_options.include_usage) gives the usage.
 */
export function chatFrameReader(): FrameReader {
  let started = false;
  const tools = new Map<number, number>();
  return {
    frame(frame: SseFrame): StreamEvent[] {
      const chunk = frameJson(frame);
      if (!chunk) return [];
      if (isRecord(chunk.error))
        return [{ type: "error", message: String(chunk.error.message ?? "upstream error") }];
      const events: StreamEvent[] = [];
      if (!started) {
        started = true;
        events.push({
          type: "start",
          id: String(chunk.id ?? ""),
          model: String(chunk.model ?? ""),
        });
      }
      const choice = record(list(chunk.choices)[0]);
      const delta = record(choice.delta);
      const content = text(delta.content) ?? text(delta.refusal);
      if (content) events.push({ type: "text", text: content });
      for (const item of list(delta.tool_calls)) {
        const call = record(item);
        const fn = record(call.function);
        const upstream = typeof call.index === "number" ? call.index : tools.size;
        let index = tools.get(upstream);
        if (index === undefined) {
          index = tools.size;
          tools.set(upstream, index);
          const id = String(call.id ?? `call_${index}`);
          events.push({ type: "tool_call_start", index, id, name: String(fn.name ?? "") });
        }
        const piece = text(fn.arguments);
        if (piece) events.push({ type: "tool_call_delta", index, arguments: piece });
      }
      if (given(choice.finish_reason))
        events.push({ type: "finish", finish: readChatFinish(choice.finish_reason) });
      const usage = readChatUsage(chunk.usage);
      if (usage) events.push({ type: "usage", usage });
      return events;
    },
  };
}
