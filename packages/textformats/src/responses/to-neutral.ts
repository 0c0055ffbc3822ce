import { addSystem, addTurn, emptyConversation, nameToolResults } from "../conversation.ts";
import { imageFromUrl } from "../images.ts";
import type {
  Conversation,
  ImagePart,
  OpaquePart,
  ResponseFormat,
  TextPart,
  ToolChoice,
} from "../neutral.ts";

type Content = TextPart | ImagePart | OpaquePart;

import { given, type Json, list, num, record, text } from "../read.ts";

type Reader = (value: unknown, conv: Conversation) => void;

const setting =
  (key: "temperature" | "topP" | "maxOutputTokens"): Reader =>
  (value, conv) => {
    const number = num(value);
    if (number !== undefined) conv[key] = number;
  };

const unlessDefault =
  (name: string, isDefault: (value: unknown) => boolean): Reader =>
  (value, conv) => {
    if (given(value) && !isDefault(value)) conv.untranslatable.push(name);
  };

/** Bookkeeping and routing hints with no effect on the answer's content (see the table). */
const ignored: Reader = () => {};

const READERS: Record<string, Reader> = {
  model: ignored,
  input: ignored,
  instructions: (value, conv) => {
    if (typeof value === "string") conv.system.push(value);
  },
  stream: (value, conv) => {
    conv.stream = value === true;
  },
  max_output_tokens: setting("maxOutputTokens"),
  temperature: setting("temperature"),
  top_p: setting("topP"),
  tools: readTools,
  tool_choice: readToolChoice,
  parallel_tool_calls: (value, conv) => {
    if (typeof value === "boolean") conv.parallelToolCalls = value;
  },
  text: readText,
  reasoning: (value, conv) => {
    const reasoning = record(value);
    if (typeof reasoning.effort === "string") conv.reasoningEffort = reasoning.effort;
    for (const key of Object.keys(reasoning))
      if (key !== "effort" && given(reasoning[key])) conv.untranslatable.push(`reasoning.${key}`);
  },
  background: unlessDefault("background", (value) => value === false),
  include: unlessDefault("include", (value) => Array.isArray(value) && value.length === 0),
  truncation: unlessDefault("truncation", (value) => value === "disabled"),
  user: ignored,
  safety_identifier: ignored,
  metadata: ignored,
  store: ignored,
  service_tier: ignored,
  stream_options: ignored,
  prompt_cache_key: ignored,
  prompt_cache_retention: ignored,
  prompt_cache_options: ignored,
};

function readTools(value: unknown, conv: Conversation): void {
  list(value).forEach((item, index) => {
    const tool = record(item);
    if (tool.type !== "function" || typeof tool.name !== "string") {
      conv.untranslatable.push(`tools[${index}] (${String(tool.type)} tool)`);
      return;
    }
    conv.tools.push({
      name: tool.name,
      ...(typeof tool.description === "string" ? { description: tool.description } : {}),
      parameters: given(tool.parameters)
        ? record(tool.parameters)
        : { type: "object", properties: {} },
      ...(typeof tool.strict === "boolean" ? { strict: tool.strict } : {}),
    });
  });
}

function readToolChoice(value: unknown, conv: Conversation): void {
  if (!given(value)) return;
  let choice: ToolChoice | undefined;
  if (value === "auto" || value === "none" || value === "required") choice = { type: value };
  const named = record(value);
  if (named.type === "function" && typeof named.name === "string")
    choice = { type: "tool", name: named.name };
  if (choice) conv.toolChoice = choice;
  else conv.untranslatable.push("tool_choice");
}

function readText(value: unknown, conv: Conversation): void {
  const config = record(value);
  if (typeof config.verbosity === "string") conv.verbosity = config.verbosity;
  for (const key of Object.keys(config))
    if (key !== "format" && key !== "verbosity" && given(config[key]))
      conv.untranslatable.push(`text.${key}`);
  const format = record(config.format);
  if (!given(config.format) || format.type === "text") return;
  let read: ResponseFormat | undefined;
  if (format.type === "json_object") read = { type: "json_object" };
  else if (format.type === "json_schema" && given(format.schema))
    read = {
      type: "json_schema",
      schema: record(format.schema),
      ...(typeof format.name === "string" ? { name: format.name } : {}),
      ...(typeof format.description === "string" ? { description: format.description } : {}),
      ...(typeof format.strict === "boolean" ? { strict: format.strict } : {}),
    };
  if (read) conv.responseFormat = read;
  else conv.untranslatable.push(`text.format (${String(format.type)})`);
}

/** Content of an input message: a string or input_text / input_image / output_text parts. */
function contentParts(content: unknown, at: string): Content[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return list(content).map((item, index): Content => {
    const part = record(item);
    const textValue = text(part.text) ?? text(part.refusal);
    const isText = part.type === "input_text" || part.type === "output_text";
    if ((isText || part.type === "refusal") && textValue !== undefined)
      return { type: "text", text: textValue };
    const url = text(part.image_url);
    if (part.type === "input_image" && url !== undefined)
      return { type: "image", source: imageFromUrl(url) };
    return { type: "opaque", field: `${at}.content[${index}] (${String(part.type)})`, media: true };
  });
}

function readItem(item: unknown, index: number, conv: Conversation): void {
  const entry = record(item);
  const at = `input[${index}]`;
  const type = entry.type ?? "message";
  if (type === "message") {
    const parts = contentParts(entry.content, at);
    if (entry.role === "system" || entry.role === "developer") addSystem(conv, parts);
    else if (entry.role === "assistant") addTurn(conv, "assistant", parts);
    else addTurn(conv, "user", parts);
  } else if (type === "function_call")
    addTurn(conv, "assistant", [
      {
        type: "tool_call",
        id: String(entry.call_id ?? ""),
        name: String(entry.name ?? ""),
        arguments: text(entry.arguments) ?? "",
      },
    ]);
  else if (type === "function_call_output")
    addTurn(conv, "user", [
      {
        type: "tool_result",
        callId: String(entry.call_id ?? ""),
        content: contentParts(entry.output, `${at}.output`),
        isError: false,
      },
    ]);
  else addTurn(conv, "user", [{ type: "opaque", field: `${at} (${String(type)})`, media: false }]);
}

/** A responses request (already checked by `ResponsesRequest`) in neutral form. */
export function responsesToNeutral(body: Json): Conversation {
  const conv = emptyConversation("responses", String(body.model));
  for (const [key, value] of Object.entries(body)) {
    const reader = Object.hasOwn(READERS, key) ? READERS[key] : undefined;
    if (reader) reader(value, conv);
    else if (given(value)) conv.untranslatable.push(key);
  }
  if (typeof body.input === "string")
    conv.messages.push({ role: "user", parts: [{ type: "text", text: body.input }] });
  else for (const [index, item] of list(body.input).entries()) readItem(item, index, conv);
  nameToolResults(conv);
  return conv;
}
