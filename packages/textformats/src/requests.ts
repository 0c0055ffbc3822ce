import { type ChatWriteOptions, neutralToChat } from "./chat/from-neutral.ts";
import { chatToNeutral } from "./chat/to-neutral.ts";
import type { TextFormat } from "./formats.ts";
import { neutralToGenerateContent } from "./generate-content/from-neutral.ts";
import {
  type GenerateContentPath,
  generateContentToNeutral,
} from "./generate-content/to-neutral.ts";
import { type MessagesWriteOptions, neutralToMessages } from "./messages/from-neutral.ts";
import { messagesToNeutral } from "./messages/to-neutral.ts";
import type { Conversation } from "./neutral.ts";
import { type Outcome, ok } from "./outcome.ts";
import type { Json } from "./read.ts";
import { neutralToResponses } from "./responses/from-neutral.ts";
import { responsesToNeutral } from "./responses/to-neutral.ts";

export type { GenerateContentPath };
export type WriteOptions = ChatWriteOptions & MessagesWriteOptions;

/**
 * A client request (already checked by its format's schema) in neutral form. Never fails:
 * what has no neutral form is kept by name and refused only by `fromNeutral`, so the same
 * reading serves same-format calls (media check, local count, output cap) too.
 * generateContent takes its model and stream choice from the path.
 */
export function toNeutral(
  format: TextFormat,
  body: Json,
  path: GenerateContentPath = { model: "", stream: false },
): Conversation {
  switch (format) {
    case "chat":
      return chatToNeutral(body);
    case "responses":
      return responsesToNeutral(body);
    case "messages":
      return messagesToNeutral(body);
    case "generateContent":
      return generateContentToNeutral(body, path);
  }
}

/**
 * A neutral conversation as an upstream request body of `format`, or `untranslatable`
 * naming the first client field the format cannot carry. For generateContent the model
 * and stream choice go in the path (`conv.model`, `conv.stream`), not the body.
 */
export function fromNeutral(
  format: TextFormat,
  conv: Conversation,
  options: WriteOptions = {},
): Outcome<Json> {
  switch (format) {
    case "chat":
      return neutralToChat(conv, options);
    case "responses":
      return neutralToResponses(conv);
    case "messages":
      return neutralToMessages(conv, options);
    case "generateContent":
      return neutralToGenerateContent(conv);
  }
}

/** A client request as the upstream's body; a same-format call passes through unchanged. */
export function translateRequest(
  from: TextFormat,
  to: TextFormat,
  body: Json,
  options: WriteOptions & { path?: GenerateContentPath } = {},
): Outcome<Json> {
  if (from === to) return ok(body);
  return fromNeutral(to, toNeutral(from, body, options.path), options);
}

/**
 * A same-format body as sent upstream, with usage reporting on where the format makes it
 * optional: a chat stream reports usage only with stream_options.include_usage, and the
 * gateway charges by it. (A relay with `stripUsage` hides it from a client that did not ask.)
 */
export function withUpstreamUsage(format: TextFormat, body: Json): Json {
  if (format !== "chat" || body.stream !== true) return body;
  const options = (body.stream_options ?? {}) as Json;
  return { ...body, stream_options: { ...options, include_usage: true } };
}
