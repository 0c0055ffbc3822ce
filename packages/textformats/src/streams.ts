import { chatFrameReader } from "./chat/stream-read.ts";
import { chatStreamWriter } from "./chat/stream-write.ts";
import type { TextFormat } from "./formats.ts";
import { generateContentFrameReader } from "./generate-content/stream-read.ts";
import { generateContentStreamWriter } from "./generate-content/stream-write.ts";
import { messagesFrameReader } from "./messages/stream-read.ts";
import { messagesStreamWriter } from "./messages/stream-write.ts";
import { responsesFrameReader } from "./responses/stream-read.ts";
import { responsesStreamWriter } from "./responses/stream-write.ts";
import { type FrameReader, frameParser, type StreamParser } from "./stream-parser.ts";
import type { StreamWriteContext, StreamWriter } from "./stream-writer.ts";

export function frameReader(format: TextFormat): FrameReader {
  switch (format) {
    case "chat":
      return chatFrameReader();
    case "responses":
      return responsesFrameReader();
    case "messages":
      return messagesFrameReader();
    case "generateContent":
      return generateContentFrameReader();
  }
}

/** A parser of one upstream SSE stream of `format` into neutral events. */
export const createStreamParser = (format: TextFormat): StreamParser =>
  frameParser(frameReader(format));

/** A writer of neutral events as one client SSE stream of `format`. */
export function createStreamWriter(
  format: TextFormat,
  context: StreamWriteContext = {},
): StreamWriter {
  switch (format) {
    case "chat":
      return chatStreamWriter(context);
    case "responses":
      return responsesStreamWriter(context);
    case "messages":
      return messagesStreamWriter(context);
    case "generateContent":
      return generateContentStreamWriter(context);
  }
}
