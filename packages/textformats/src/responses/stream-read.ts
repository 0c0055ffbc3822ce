import type { StreamEvent } from "../neutral.ts";
import { record } from "../read.ts";
import type { SseFrame } from "../sse/decoder.ts";
import { type FrameReader, frameJson } from "../stream-parser.ts";
import { readResponsesFinish } from "./result.ts";
import { readResponsesUsage } from "./usage.ts";

/**
 * Responses events: response.created names the answer; text and function-call argument
 * deltas by output index; response.completed or response.incomplete finishes with usage.
 */
export function responsesFrameReader(): FrameReader {
  const tools = new Map<number, number>();
  const terminal = (event: Record<string, unknown>): StreamEvent[] => {
    const response = record(event.response);
    const events: StreamEvent[] = [
      { type: "finish", finish: readResponsesFinish(response, tools.size > 0) },
    ];
    const usage = readResponsesUsage(response.usage);
    if (usage) events.push({ type: "usage", usage });
    return events;
  };
  return {
    frame(frame: SseFrame): StreamEvent[] {
      const event = frameJson(frame);
      if (!event) return [];
      switch (event.type) {
        case "response.created": {
          const response = record(event.response);
          return [
            { type: "start", id: String(response.id ?? ""), model: String(response.model ?? "") },
          ];
        }
        case "response.output_item.added": {
          const item = record(event.item);
          if (item.type !== "function_call") return [];
          const index = tools.size;
          tools.set(Number(event.output_index), index);
          const id = String(item.call_id ?? "");
          return [{ type: "tool_call_start", index, id, name: String(item.name ?? "") }];
        }
        case "response.output_text.delta":
        case "response.refusal.delta":
          return typeof event.delta === "string" && event.delta !== ""
            ? [{ type: "text", text: event.delta }]
            : [];
        case "response.function_call_arguments.delta": {
          const index = tools.get(Number(event.output_index));
          if (index === undefined || typeof event.delta !== "string") return [];
          return [{ type: "tool_call_delta", index, arguments: event.delta }];
        }
        case "response.completed":
        case "response.incomplete":
          return terminal(event);
        case "response.failed": {
          const error = record(record(event.response).error);
          return [{ type: "error", message: String(error.message ?? "the response failed") }];
        }
        case "error":
          return [{ type: "error", message: String(event.message ?? "upstream error") }];
        default:
          return [];
      }
    },
  };
}
