import { addSystem, addTurn, emptyConversation, nameToolResults } from "../conversation.ts";
import { imageFromUrl } from "../images.ts";
import type {
  Conversation,
  ImagePart,
  OpaquePart,
  Part,
  ResponseFormat,
  TextPart,
  ToolChoice,
} from "../neutral.ts";

type Content = TextPart | ImagePart | OpaquePart;

import { given, type Json, list, num, record, text } from "../read.ts";

type Reader = (value: unknown, conv: Conversation, body: Json) => void;

const setting =
  (key: "temperature" | "topP" | "seed" | "presencePenalty" | "frequencyPenalty"): Reader =>
  (value, conv) => {
    const number = num(value);
    if (number !== undefined) conv[key] = number;
  };

/** Refused by every other format when set to anything but its default. */
const unlessDefault =
  (name: string, isDefault: (value: unknown) => boolean): Reader =>
  (value, conv) => {
    if (given(value) && !isDefault(value)) conv.untranslatable.push(name);
  };

/** Bookkeeping and routing hints with no effect on the answer's content (see the table). */
const ignored: Reader = () => {};

const READERS: Record<string, Reader> = {
  model: ignored,
  messages: ignored,
  stream: (value, conv) => {
    conv.stream = value === true;
  },
  stream_options: (value, conv) => {
    conv.includeUsage = record(value).include_usage === true;
  },
  max_completion_tokens: (value, conv) => {
    const cap = num(value);
    if (cap !== undefined) conv.maxOutputTokens = cap;
  },
  max_tokens: (value, conv, body) => {
    const cap = num(value);
    if (cap !== undefined && !given(body.max_completion_tokens)) conv.maxOutputTokens = cap;
  },
  temperature: setting("temperature"),
  top_p: setting("topP"),
  seed: setting("seed"),
  presence_penalty: setting("presencePenalty"),
  frequency_penalty: setting("frequencyPenalty"),
  stop: (value, conv) => {
    conv.stop = typeof value === "string" ? [value] : list(value).filter(isString);
  },
  reasoning_effort: (value, conv) => {
    if (typeof value === "string") conv.reasoningEffort = value;
  },
  verbosity: (value, conv) => {
    if (typeof value === "string") conv.verbosity = value;
  },
  tools: readTools,
  tool_choice: readToolChoice,
  parallel_tool_calls: (value, conv) => {
    if (typeof value === "boolean") conv.parallelToolCalls = value;
  },
  response_format: readResponseFormat,
  n: unlessDefault("n", (value) => value === 1),
  logprobs: unlessDefault("logprobs", (value) => value === false),
  top_logprobs: unlessDefault("top_logprobs", () => false),
  modalities: unlessDefault(
    "modalities",
    (value) => Array.isArray(value) && value.every((item) => item === "text"),
  ),
  user: ignored,
  safety_identifier: ignored,
  metadata: ignored,
  store: ignored,
  service_tier: ignored,
  prompt_cache_key: ignored,
  prompt_cache_retention: ignored,
  prompt_cache_options: ignored,
};

const isString = (value: unknown): value is string => typeof value === "string";

function readTools(value: unknown, conv: Conversation): void {
  list(value).forEach((item, index) => {
    const tool = record(item);
    const fn = record(tool.function);
    if (tool.type !== "function" || typeof fn.name !== "string") {
      conv.untranslatable.push(`tools[${index}] (${String(tool.type)} tool)`);
      return;
    }
    conv.tools.push({
      name: fn.name,
      ...(typeof fn.description === "string" ? { description: fn.description } : {}),
      parameters: given(fn.parameters) ? record(fn.parameters) : { type: "object", properties: {} },
      ...(typeof fn.strict === "boolean" ? { strict: fn.strict } : {}),
    });
  });
}

function readToolChoice(value: unknown, conv: Conversation): void {
  if (!given(value)) return;
  const choice = chatToolChoice(value);
  if (choice) conv.toolChoice = choice;
  else conv.untranslatable.push("tool_choice");
}

function chatToolChoice(value: unknown): ToolChoice | undefined {
  if (value === "auto" || value === "none" || value === "required") return { type: value };
  const named = record(value);
  const name = record(named.function).name;
  if (named.type === "function" && typeof name === "string") return { type: "tool", name };
  return undefined;
}

function readResponseFormat(value: unknown, conv: Conversation): void {
  const format = record(value);
  if (!given(value) || format.type === "text") return;
  const read = chatResponseFormat(format);
  if (read) conv.responseFormat = read;
  else conv.untranslatable.push(`response_format (${String(format.type)})`);
}

function chatResponseFormat(format: Json): ResponseFormat | undefined {
  if (format.type === "json_object") return { type: "json_object" };
  const spec = record(format.json_schema);
  if (format.type !== "json_schema" || !given(spec.schema)) return undefined;
  return {
    type: "json_schema",
    schema: record(spec.schema),
    ...(typeof spec.name === "string" ? { name: spec.name } : {}),
    ...(typeof spec.description === "string" ? { description: spec.description } : {}),
    ...(typeof spec.strict === "boolean" ? { strict: spec.strict } : {}),
  };
}

/** Content parts of a chat message; `media` says whether unknown parts are media inputs. */
function contentParts(content: unknown, at: string, media: boolean): Content[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return list(content).map((item, index): Content => {
    const part = record(item);
    const textValue = text(part.text) ?? text(part.refusal);
    if ((part.type === "text" || part.type === "refusal") && textValue !== undefined)
      return { type: "text", text: textValue };
    const url = text(record(part.image_url).url);
    if (part.type === "image_url" && url !== undefined)
      return { type: "image", source: imageFromUrl(url) };
    const known = part.type === "input_audio" || part.type === "file";
    return {
      type: "opaque",
      field: `${at}.content[${index}] (${String(part.type)})`,
      media: known || media,
    };
  });
}

function assistantParts(message: Json, at: string): Part[] {
  const parts: Part[] = contentParts(message.content, at, false);
  list(message.tool_calls).forEach((item, index) => {
    const call = record(item);
    const fn = record(call.function);
    if (call.type === "function" && typeof fn.name === "string")
      parts.push({
        type: "tool_call",
        id: String(call.id ?? ""),
        name: fn.name,
        arguments: text(fn.arguments) ?? "",
      });
    else parts.push({ type: "opaque", field: `${at}.tool_calls[${index}]`, media: false });
  });
  for (const legacy of ["function_call", "audio"])
    if (given(message[legacy]))
      parts.push({ type: "opaque", field: `${at}.${legacy}`, media: false });
  return parts;
}

function readMessage(item: unknown, index: number, conv: Conversation): void {
  const message = record(item);
  const at = `messages[${index}]`;
  const role = message.role;
  if (given(message.name) && role !== "function") conv.untranslatable.push(`${at}.name`);
  if (role === "system" || role === "developer")
    addSystem(conv, contentParts(message.content, at, false));
  else if (role === "user") addTurn(conv, "user", contentParts(message.content, at, true));
  else if (role === "assistant") addTurn(conv, "assistant", assistantParts(message, at));
  else if (role === "tool")
    addTurn(conv, "user", [
      {
        type: "tool_result",
        callId: String(message.tool_call_id ?? ""),
        content: contentParts(message.content, at, true),
        isError: false,
      },
    ]);
  else addTurn(conv, "user", [{ type: "opaque", field: `${at} (${String(role)})`, media: false }]);
}

/** A chat completions request (already checked by `ChatRequest`) in neutral form. */
export function chatToNeutral(body: Json): Conversation {
  const conv = emptyConversation("chat", String(body.model));
  for (const [key, value] of Object.entries(body)) {
    const reader = Object.hasOwn(READERS, key) ? READERS[key] : undefined;
    if (reader) reader(value, conv, body);
    else if (given(value)) conv.untranslatable.push(key);
  }
  for (const [index, item] of list(body.messages).entries()) readMessage(item, index, conv);
  nameToolResults(conv);
  return conv;
}
