import type { TextFormat } from "./formats.ts";

/*
 * The neutral form every text request, answer and stream passes through when the client's
 * format differs from the upstream's. It holds what the four formats share; whatever a
 * client sent that has no neutral meaning is kept as an `untranslatable` field name or an
 * `opaque` part, so the writer of another format can refuse it by name instead of losing it.
 */

export interface TextPart {
  type: "text";
  text: string;
}

/** An image given by URL (https) or inline as base64 data (data: URLs are read into base64). */
export type ImageSource =
  | { kind: "url"; url: string }
  | { kind: "base64"; mediaType: string; data: string };

export interface ImagePart {
  type: "image";
  source: ImageSource;
}

/** A tool call the model made; `arguments` is the JSON text of its input. */
export interface ToolCallPart {
  type: "tool_call";
  id: string;
  name: string;
  arguments: string;
}

/** The client's answer to a tool call. `name` is the called tool's, when it can be known. */
export interface ToolResultPart {
  type: "tool_result";
  callId: string;
  name?: string;
  content: (TextPart | ImagePart | OpaquePart)[];
  isError: boolean;
}

/**
 * Content with no neutral form (audio, files, documents, reasoning blocks, built-in tool
 * items…). `field` names it in the client's terms for the refusal; `media` says whether it
 * is a non-text input part (spec 4.11: media disables the prompt-overhead header).
 */
export interface OpaquePart {
  type: "opaque";
  field: string;
  media: boolean;
}

export type Part = TextPart | ImagePart | ToolCallPart | ToolResultPart | OpaquePart;

/**
 * One turn. System text before the first turn lives in `Conversation.system`; a `system`
 * message here is one that came later in the conversation (chat and responses allow that).
 * Tool results are parts of a `user` turn, as in the messages format.
 */
export interface Message {
  role: "user" | "assistant" | "system";
  parts: Part[];
}

export interface ToolDefinition {
  name: string;
  description?: string;
  /** A JSON Schema object for the tool's input. */
  parameters: Record<string, unknown>;
  strict?: boolean;
}

export type ToolChoice =
  | { type: "auto" }
  | { type: "none" }
  | { type: "required" }
  | { type: "tool"; name: string };

export type ResponseFormat =
  | { type: "json_object" }
  | {
      type: "json_schema";
      name?: string;
      description?: string;
      schema: Record<string, unknown>;
      strict?: boolean;
    };

/** The sampling and output settings some formats have and others lack. */
export interface Settings {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  reasoningEffort?: string;
  verbosity?: string;
}

export interface Conversation extends Settings {
  /** The format this conversation was read from (names fields in refusals). */
  source: TextFormat;
  model: string;
  stream: boolean;
  /** The client asked for usage in the stream (chat's stream_options.include_usage). */
  includeUsage: boolean;
  system: string[];
  messages: Message[];
  tools: ToolDefinition[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  stop: string[];
  responseFormat?: ResponseFormat;
  /** Client fields no other format can express, by their name in the client's format. */
  untranslatable: string[];
}

/**
 * Token usage with disjoint counters: `inputTokens` excludes cache reads and writes (the
 * messages API's meaning), so the full reported input is their sum (`fullInputTokens`).
 * `reasoningTokens` is the part of `outputTokens` spent on reasoning, when reported.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens?: number;
}

/** Why generation stopped; `other` covers upstream reasons no client format names. */
export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "other";

export interface Finish {
  reason: FinishReason;
  /** The stop sequence that ended the answer, when the upstream says which. */
  stopSequence?: string;
}

/** A non-streamed answer. `usage` is absent when the upstream reported none. */
export interface TextResult {
  id: string;
  model: string;
  parts: (TextPart | ToolCallPart)[];
  finish: Finish;
  usage?: Usage;
}

/**
 * One step of a streamed answer. Tool calls are numbered from 0 in the order they start.
 * `usage` events carry cumulative totals: the last one is the answer's usage.
 */
export type StreamEvent =
  | { type: "start"; id: string; model: string }
  | { type: "text"; text: string }
  | { type: "tool_call_start"; index: number; id: string; name: string }
  | { type: "tool_call_delta"; index: number; arguments: string }
  | { type: "finish"; finish: Finish }
  | { type: "usage"; usage: Usage }
  | { type: "error"; message: string };
