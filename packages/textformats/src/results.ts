import { readChatResult, writeChatResult } from "./chat/result.ts";
import type { TextFormat } from "./formats.ts";
import {
  readGenerateContentResult,
  writeGenerateContentResult,
} from "./generate-content/result.ts";
import { readMessagesResult, writeMessagesResult } from "./messages/result.ts";
import type { TextResult } from "./neutral.ts";
import type { Outcome } from "./outcome.ts";
import type { Json } from "./read.ts";
import { readResponsesResult, writeResponsesResult } from "./responses/result.ts";
import type { WriteContext } from "./write-context.ts";

/** An upstream's non-streamed answer in neutral form, or `upstream_error` for a bad shape. */
export function readResult(format: TextFormat, body: unknown): Outcome<TextResult> {
  switch (format) {
    case "chat":
      return readChatResult(body);
    case "responses":
      return readResponsesResult(body);
    case "messages":
      return readMessagesResult(body);
    case "generateContent":
      return readGenerateContentResult(body);
  }
}

/** A neutral answer as the client format's response body. */
export function writeResult(
  format: TextFormat,
  result: TextResult,
  context: WriteContext = {},
): Outcome<Json> {
  switch (format) {
    case "chat":
      return writeChatResult(result, context);
    case "responses":
      return writeResponsesResult(result, context);
    case "messages":
      return writeMessagesResult(result, context);
    case "generateContent":
      return writeGenerateContentResult(result, context);
  }
}
