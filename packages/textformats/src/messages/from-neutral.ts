import { argumentsObject } from "../arguments.ts";
import type { Conversation, ImagePart, Message, ToolResultPart } from "../neutral.ts";
import { type FormatError, type Outcome, ok, refuse } from "../outcome.ts";
import { compact, type Json } from "../read.ts";
import { clientField, commonRefusal } from "../refusals.ts";

export interface MessagesWriteOptions {
  /** The output cap to send when the client set none (the messages API requires one). */
  defaultMaxTokens?: number;
}

type Blocks = { ok: true; blocks: Json[] } | FormatError;

/**
 * The messages API takes tool ids matching ^[a-zA-Z0-9_-]+$; some OpenAI-compatible
 * upstreams mint ids like "functions.f:0". The same mapping applies to a call and to its
 * result, so they still pair.
 */
const toolId = (id: string): string => id.replace(/[^A-Za-z0-9_-]/g, "_") || "toolu_none";

const imageBlock = (part: ImagePart): Json => ({
  type: "image",
  source:
    part.source.kind === "url"
      ? { type: "url", url: part.source.url }
      : { type: "base64", media_type: part.source.mediaType, data: part.source.data },
});

function toolResultBlock(part: ToolResultPart): Json {
  const onlyText = part.content.every((item) => item.type === "text");
  const content = onlyText
    ? part.content.map((item) => (item.type === "text" ? item.text : "")).join("\n")
    : part.content.flatMap((item) =>
        item.type === "text"
          ? [{ type: "text", text: item.text }]
          : item.type === "image"
            ? [imageBlock(item)]
            : [],
      );
  return compact({
    type: "tool_result",
    tool_use_id: toolId(part.callId),
    content,
    is_error: part.isError ? true : undefined,
  });
}

/** The API refuses empty text blocks; an empty text carries nothing, so it is left out. */
function turnBlocks(message: Message, at: string): Blocks {
  const results: Json[] = [];
  const rest: Json[] = [];
  for (const part of message.parts) {
    if (part.type === "tool_result") results.push(toolResultBlock(part));
    else if (part.type === "text") {
      if (part.text !== "") rest.push({ type: "text", text: part.text });
    } else if (part.type === "image") rest.push(imageBlock(part));
    else if (part.type === "tool_call") {
      const input = argumentsObject(part.arguments, at);
      if (!input.ok) return input;
      rest.push({ type: "tool_use", id: toolId(part.id), name: part.name, input: input.value });
    } else return refuse(part.field, "messages");
  }
  return { ok: true, blocks: [...results, ...rest] };
}

function messageParams(conv: Conversation): { ok: true; messages: Json[] } | FormatError {
  const messages: Json[] = [];
  let previous: Json | undefined;
  for (const [index, message] of conv.messages.entries()) {
    if (message.role === "system")
      return refuse("a system message after the conversation started", "messages");
    const written = turnBlocks(message, `turn ${index}`);
    if (!written.ok) return written;
    // Consecutive turns of one role become one message, as the messages API reads them.
    if (previous && previous.role === message.role)
      (previous.content as Json[]).push(...written.blocks);
    else {
      previous = { role: message.role, content: written.blocks };
      messages.push(previous);
    }
  }
  for (const message of messages) {
    const content = message.content as Json[];
    // Tool results must open the user message that answers the tool calls.
    const results = content.filter((block) => block.type === "tool_result");
    const rest = content.filter((block) => block.type !== "tool_result");
    message.content = content.length === 0 ? "" : [...results, ...rest];
  }
  return { ok: true, messages };
}

function toolChoice(conv: Conversation): Json | undefined {
  const choice = conv.toolChoice;
  const single = conv.parallelToolCalls === false ? true : undefined;
  if (!choice) return single ? { type: "auto", disable_parallel_tool_use: true } : undefined;
  if (choice.type === "none") return { type: "none" };
  if (choice.type === "tool")
    return compact({ type: "tool", name: choice.name, disable_parallel_tool_use: single });
  const type = choice.type === "required" ? "any" : "auto";
  return compact({ type, disable_parallel_tool_use: single });
}

/** A neutral conversation as a messages request. */
export function neutralToMessages(
  conv: Conversation,
  options: MessagesWriteOptions = {},
): Outcome<Json> {
  const refusal = commonRefusal(conv, "messages");
  if (refusal) return refusal;
  if (conv.responseFormat?.type === "json_object")
    return refuse(`${clientField(conv, "responseFormat")} json_object`, "messages");
  const maxTokens = conv.maxOutputTokens ?? options.defaultMaxTokens;
  if (maxTokens === undefined)
    return refuse("a request without an output cap", "messages", "it requires max_tokens");
  const written = messageParams(conv);
  if (!written.ok) return written;
  const tools = conv.tools.map((tool) =>
    compact({
      name: tool.name,
      description: tool.description,
      input_schema: tool.parameters,
      // false is the default here; only a strict tool says something.
      strict: tool.strict === true ? true : undefined,
    }),
  );
  const format = conv.responseFormat;
  return ok(
    compact({
      model: conv.model,
      max_tokens: maxTokens,
      system:
        conv.system.length === 0
          ? undefined
          : conv.system.length === 1
            ? conv.system[0]
            : conv.system.map((text) => ({ type: "text", text })),
      messages: written.messages,
      stream: conv.stream ? true : undefined,
      temperature: conv.temperature,
      top_p: conv.topP,
      top_k: conv.topK,
      stop_sequences: conv.stop.length > 0 ? conv.stop : undefined,
      tools: tools.length > 0 ? tools : undefined,
      tool_choice: toolChoice(conv),
      output_config:
        format?.type === "json_schema"
          ? { format: { type: "json_schema", schema: format.schema } }
          : undefined,
    }),
  );
}
