export { ChatRequest } from "./chat/schema.ts";
export { FORMAT_LABEL, TEXT_FORMATS, type TextFormat } from "./formats.ts";
export { GenerateContentRequest } from "./generate-content/schema.ts";
export {
  type CountableBlock,
  type CountableRequest,
  countableRequest,
  hasMedia,
  outputCap,
} from "./inspect.ts";
export { MessagesRequest } from "./messages/schema.ts";
export type {
  Conversation,
  Finish,
  FinishReason,
  ImagePart,
  ImageSource,
  Message,
  OpaquePart,
  Part,
  ResponseFormat,
  StreamEvent,
  TextPart,
  TextResult,
  ToolCallPart,
  ToolChoice,
  ToolDefinition,
  ToolResultPart,
  Usage,
} from "./neutral.ts";
export type { FormatError, FormatErrorCode, Outcome } from "./outcome.ts";
export {
  OVERHEAD_MIN_TOKENS,
  type OverheadInput,
  overheadComment,
  PROMPT_OVERHEAD_HEADER,
  promptExcessTokens,
  promptOverheadTokens,
} from "./overhead.ts";
export { createStreamRelay, type RelayOptions, type StreamRelay } from "./relay.ts";
export {
  fromNeutral,
  type GenerateContentPath,
  toNeutral,
  translateRequest,
  type WriteOptions,
  withUpstreamUsage,
} from "./requests.ts";
export { ResponsesRequest } from "./responses/schema.ts";
export { readResult, writeResult } from "./results.ts";
export { MAX_FRAME_CHARS, SseFrameTooLargeError } from "./sse/decoder.ts";
export type { StreamParser } from "./stream-parser.ts";
export type { StreamWriteContext, StreamWriter } from "./stream-writer.ts";
export { createStreamParser, createStreamWriter } from "./streams.ts";
export { fullInputTokens, totalTokens } from "./usage.ts";
export type { WriteContext } from "./write-context.ts";
