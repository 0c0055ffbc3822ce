import type { StreamEvent } from "../neutral.ts";
import { given, isRecord, list, record } from "../read.ts";
import type { SseFrame } from "../sse/decoder.ts";
import { type FrameReader, frameJson } from "../stream-parser.ts";
import { readGenerateContentFinish } from "./finish.ts";
import { candidateParts } from "./result.ts";
import { readGenerateContentUsage } from "./usage.ts";

/**
 * generateContent SSE (`alt=sse`): each chunk is a GenerateContentResponse with new
 * parts; function calls arrive whole; the last chunk has the finishReason, and
 * usageMetadata holds running totals.
 */
export function generateContentFrameReader(): FrameReader {
  let started = false;
  let calls = 0;
  return {
    frame(frame: SseFrame): StreamEvent[] {
      const chunk = frameJson(frame);
      if (!chunk) return [];
      if (isRecord(chunk.error))
        return [{ type: "error", message: String(chunk.error.message ?? "upstream error") }];
      const events: StreamEvent[] = [];
      if (!started) {
        started = true;
        const id = String(chunk.responseId ?? "");
        events.push({ type: "start", id, model: String(chunk.modelVersion ?? "") });
      }
      const candidate = record(list(chunk.candidates)[0]);
      for (const part of candidateParts(candidate, calls)) {
        if (part.type === "text") {
          if (part.text !== "") events.push({ type: "text", text: part.text });
          continue;
        }
        const index = calls;
        calls += 1;
        events.push({ type: "tool_call_start", index, id: part.id, name: part.name });
        events.push({ type: "tool_call_delta", index, arguments: part.arguments });
      }
      const blocked = record(chunk.promptFeedback).blockReason;
      if (given(candidate.finishReason))
        events.push({
          type: "finish",
          finish: readGenerateContentFinish(candidate.finishReason, calls > 0),
        });
      else if (given(blocked))
        events.push({ type: "finish", finish: { reason: "content_filter" } });
      const usage = readGenerateContentUsage(chunk.usageMetadata);
      if (usage) events.push({ type: "usage", usage });
      return events;
    },
  };
}
