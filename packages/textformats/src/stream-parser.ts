import type { StreamEvent } from "./neutral.ts";
import { isRecord, type Json } from "./read.ts";
import { createSseDecoder, type SseFrame } from "./sse/decoder.ts";

/** Reads one upstream format's SSE frames into neutral events, keeping its own state. */
export interface FrameReader {
  frame(frame: SseFrame): StreamEvent[];
}

/** Turns an upstream's SSE text, chunk by chunk, into neutral stream events. */
export interface StreamParser {
  push(chunk: string): StreamEvent[];
  /**
   * Events of the last frame, and an `error` event when the upstream stream stopped
   * before it said how the answer finished (a cut connection must not read as complete).
   */
  end(): StreamEvent[];
}

export function frameParser(reader: FrameReader): StreamParser {
  const decoder = createSseDecoder();
  let finished = false;
  const read = (frames: SseFrame[]): StreamEvent[] => {
    const events = frames.flatMap((frame) => reader.frame(frame));
    if (events.some((event) => event.type === "finish" || event.type === "error")) finished = true;
    return events;
  };
  return {
    push: (chunk) => read(decoder.push(chunk)),
    end() {
      const events = read(decoder.end());
      if (!finished) {
        finished = true;
        events.push({
          type: "error",
          message: "the upstream stream ended before the answer finished",
        });
      }
      return events;
    },
  };
}

const parsedFrames = new WeakMap<SseFrame, Json | undefined>();

/**
 * A frame's JSON data, or undefined for keep-alives, comments and non-JSON sentinels.
 * Parsed once per frame: a relay reads a frame both for usage and for what to forward.
 */
export function frameJson(frame: SseFrame): Json | undefined {
  if (frame.data === "" || frame.data === "[DONE]") return undefined;
  if (parsedFrames.has(frame)) return parsedFrames.get(frame);
  let json: Json | undefined;
  try {
    const parsed: unknown = JSON.parse(frame.data);
    json = isRecord(parsed) ? parsed : undefined;
  } catch {
    json = undefined;
  }
  parsedFrames.set(frame, json);
  return json;
}
