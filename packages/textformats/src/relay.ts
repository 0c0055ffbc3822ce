import type { TextFormat } from "./formats.ts";
import type { Finish, StreamEvent, Usage } from "./neutral.ts";
import { overheadComment } from "./overhead.ts";
import { createSseDecoder, type SseFrame } from "./sse/decoder.ts";
import { frameJson } from "./stream-parser.ts";
import { frameReader } from "./streams.ts";

export interface RelayOptions {
  /**
   * Asked once, when the stream reaches the frame the comment of spec 4.11 goes before,
   * with the usage seen so far; a number puts `: x-service-provider-prompt-tokens=<N>`
   * there. generateContent streams never ask.
   */
  promptOverhead?: (usage: Usage | undefined) => number | undefined;
  /** Chat: leave out the usage-only chunk (the gateway asked for it, the client did not). */
  stripUsage?: boolean;
}

/** A same-format stream passed through as received, watched for usage and the finish. */
export interface StreamRelay {
  /** The text to forward for this chunk of upstream text. */
  push(chunk: string): string;
  end(): string;
  /** The latest usage totals the stream reported. */
  usage(): Usage | undefined;
  finish(): Finish | undefined;
  /** The upstream's own error event, if it sent one. */
  error(): string | undefined;
}

/** The frame the comment goes before: `data: [DONE]`, `message_stop`, `response.completed`. */
function isTerminal(format: TextFormat, frame: SseFrame): boolean {
  if (format === "chat") return frame.data === "[DONE]";
  if (format === "generateContent") return false;
  const type = frame.event ?? frameJson(frame)?.type;
  if (format === "messages") return type === "message_stop";
  return type === "response.completed" || type === "response.incomplete";
}

function isUsageOnlyChunk(frame: SseFrame): boolean {
  const chunk = frameJson(frame);
  return Array.isArray(chunk?.choices) && chunk.choices.length === 0 && chunk.usage != null;
}

/**
 * Relays an upstream stream of the client's own format frame by frame, adding the
 * prompt-overhead comment before the terminal frame. Frames are forwarded as their text
 * (line endings normalised to "\n"), so every field the upstream sends reaches the client.
 */
export function createStreamRelay(format: TextFormat, options: RelayOptions = {}): StreamRelay {
  const decoder = createSseDecoder();
  const reader = frameReader(format);
  let usage: Usage | undefined;
  let finish: Finish | undefined;
  let error: string | undefined;
  let asked = false;

  const observe = (events: StreamEvent[]) => {
    for (const event of events)
      if (event.type === "usage") usage = event.usage;
      else if (event.type === "finish") finish = event.finish;
      else if (event.type === "error") error = event.message;
  };
  const relay = (frames: SseFrame[]): string => {
    let out = "";
    for (const frame of frames) {
      observe(reader.frame(frame));
      if (options.stripUsage && format === "chat" && isUsageOnlyChunk(frame)) continue;
      if (!asked && isTerminal(format, frame)) {
        asked = true;
        const tokens = options.promptOverhead?.(usage);
        if (tokens !== undefined) out += overheadComment(tokens);
      }
      out += `${frame.raw}\n\n`;
    }
    return out;
  };

  return {
    push: (chunk) => relay(decoder.push(chunk)),
    end: () => relay(decoder.end()),
    usage: () => usage,
    finish: () => finish,
    error: () => error,
  };
}
