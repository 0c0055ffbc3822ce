import { argumentsText } from "../arguments.ts";
import { addSystem, addTurn, emptyConversation, nameToolResults } from "../conversation.ts";
import type {
  Conversation,
  ImagePart,
  OpaquePart,
  Part,
  TextPart,
  ToolChoice,
} from "../neutral.ts";
import { given, type Json, list, num, record } from "../read.ts";

type Reader = (value: unknown, conv: Conversation) => void;

const setting =
  (key: "temperature" | "topP" | "topK" | "maxOutputTokens"): Reader =>
  (value, conv) => {
    const number = num(value);
    if (number !== undefined) conv[key] = number;
  };

/** Bookkeeping and caching hints with no effect on the answer's content (see the table). */
const ignored: Reader = () => {};

const READERS: Record<string, Reader> = {
  model: ignored,
  messages: ignored,
  system: (value, conv) => addSystem(conv, blocks(value, "system", false)),
  stream: (value, conv) => {
    conv.stream = value === true;
  },
  max_tokens: setting("maxOutputTokens"),
  temperature: setting("temperature"),
  top_p: setting("topP"),
  top_k: setting("topK"),
  stop_sequences: (value, conv) => {
    conv.stop = list(value).filter((item): item is string => typeof item === "string");
  },
  tools: readTools,
  tool_choice: readToolChoice,
  output_config: readOutputConfig,
  thinking: (value, conv) => {
    if (given(value) && record(value).type !== "disabled") conv.untranslatable.push("thinking");
  },
  metadata: ignored,
  service_tier: ignored,
  cache_control: ignored,
};

function readTools(value: unknown, conv: Conversation): void {
  list(value).forEach((item, index) => {
    const tool = record(item);
    const custom = !given(tool.type) || tool.type === "custom";
    if (!custom || typeof tool.name !== "string") {
      conv.untranslatable.push(`tools[${index}] (${String(tool.type)} tool)`);
      return;
    }
    conv.tools.push({
      name: tool.name,
      ...(typeof tool.description === "string" ? { description: tool.description } : {}),
      parameters: record(tool.input_schema),
      ...(typeof tool.strict === "boolean" ? { strict: tool.strict } : {}),
    });
  });
}

const CHOICES: Record<string, ToolChoice["type"]> = {
  auto: "auto",
  any: "required",
  none: "none",
  tool: "tool",
};

function readToolChoice(value: unknown, conv: Conversation): void {
  if (!given(value)) return;
  const choice = record(value);
  const type = CHOICES[String(choice.type)];
  if (type === "tool" && typeof choice.name === "string")
    conv.toolChoice = { type: "tool", name: choice.name };
  else if (type !== undefined && type !== "tool") conv.toolChoice = { type };
  else conv.untranslatable.push("tool_choice");
  if (choice.disable_parallel_tool_use === true) conv.parallelToolCalls = false;
}

function readOutputConfig(value: unknown, conv: Conversation): void {
  const config = record(value);
  for (const [key, entry] of Object.entries(config)) {
    if (!given(entry)) continue;
    const format = record(entry);
    if (key === "format" && format.type === "json_schema" && given(format.schema))
      conv.responseFormat = { type: "json_schema", schema: record(format.schema) };
    else conv.untranslatable.push(`output_config.${key}`);
  }
}

function image(block: Json, field: string): ImagePart | OpaquePart {
  const source = record(block.source);
  if (source.type === "base64" && typeof source.data === "string")
    return {
      type: "image",
      source: { kind: "base64", mediaType: String(source.media_type ?? ""), data: source.data },
    };
  if (source.type === "url" && typeof source.url === "string")
    return { type: "image", source: { kind: "url", url: source.url } };
  return { type: "opaque", field: `${field} (${String(source.type)} image source)`, media: true };
}

/** Blocks of a string-or-blocks content; `media` says whether unknown blocks are media. */
function blocks(content: unknown, at: string, media: boolean): Part[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return list(content).map((item, index) => block(record(item), `${at}[${index}]`, media));
}

function block(value: Json, field: string, media: boolean): Part {
  if (value.type === "text" && typeof value.text === "string")
    return { type: "text", text: value.text };
  if (value.type === "image") return image(value, field);
  if (value.type === "tool_use")
    return {
      type: "tool_call",
      id: String(value.id ?? ""),
      name: String(value.name ?? ""),
      arguments: argumentsText(value.input),
    };
  if (value.type === "tool_result")
    return {
      type: "tool_result",
      callId: String(value.tool_use_id ?? ""),
      content: blocks(value.content ?? [], `${field}.content`, true).map(resultContent),
      isError: value.is_error === true,
    };
  const isMedia = media || value.type === "document";
  return { type: "opaque", field: `${field} (${String(value.type)})`, media: isMedia };
}

const resultContent = (part: Part): TextPart | ImagePart | OpaquePart =>
  part.type === "text" || part.type === "image" || part.type === "opaque"
    ? part
    : { type: "opaque", field: `a ${part.type} inside a tool_result`, media: false };

/** A messages request (already checked by `MessagesRequest`) in neutral form. */
export function messagesToNeutral(body: Json): Conversation {
  const conv = emptyConversation("messages", String(body.model));
  for (const [key, value] of Object.entries(body)) {
    const reader = Object.hasOwn(READERS, key) ? READERS[key] : undefined;
    if (reader) reader(value, conv);
    else if (given(value)) conv.untranslatable.push(key);
  }
  list(body.messages).forEach((item, index) => {
    const message = record(item);
    const at = `messages[${index}].content`;
    if (message.role === "system") addSystem(conv, blocks(message.content, at, false));
    else {
      const role = message.role === "assistant" ? "assistant" : "user";
      addTurn(conv, role, blocks(message.content, at, role === "user"));
    }
  });
  nameToolResults(conv);
  return conv;
}
