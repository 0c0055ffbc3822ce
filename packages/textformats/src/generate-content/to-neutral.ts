import { argumentsText } from "../arguments.ts";
import { addSystem, addTurn, emptyConversation } from "../conversation.ts";
import type { Conversation, Part, ToolChoice } from "../neutral.ts";
import { given, type Json, list, num, record, text } from "../read.ts";
import { normalizeRequest } from "./keys.ts";
import { jsonSchemaOf } from "./schema-json.ts";

/** What the path says: `models/{model}:generateContent` or `:streamGenerateContent`. */
export interface GenerateContentPath {
  model: string;
  stream: boolean;
}

type Reader = (value: unknown, conv: Conversation) => void;

const ignored: Reader = () => {};

const GENERATION: Record<string, (value: unknown, conv: Conversation, config: Json) => void> = {
  temperature: (value, conv) => {
    conv.temperature = num(value);
  },
  topP: (value, conv) => {
    conv.topP = num(value);
  },
  topK: (value, conv) => {
    conv.topK = num(value);
  },
  maxOutputTokens: (value, conv) => {
    conv.maxOutputTokens = num(value);
  },
  seed: (value, conv) => {
    conv.seed = num(value);
  },
  presencePenalty: (value, conv) => {
    conv.presencePenalty = num(value);
  },
  frequencyPenalty: (value, conv) => {
    conv.frequencyPenalty = num(value);
  },
  stopSequences: (value, conv) => {
    conv.stop = list(value).filter((item): item is string => typeof item === "string");
  },
  candidateCount: (value, conv) => {
    if (value !== 1) conv.untranslatable.push("generationConfig.candidateCount");
  },
  responseModalities: (value, conv) => {
    if (!list(value).every((item) => String(item).toUpperCase() === "TEXT"))
      conv.untranslatable.push("generationConfig.responseModalities");
  },
  responseMimeType: (value, conv, config) => {
    if (value === "text/plain") return;
    if (value !== "application/json")
      conv.untranslatable.push(`generationConfig.responseMimeType (${String(value)})`);
    else if (!given(config.responseJsonSchema)) conv.responseFormat = { type: "json_object" };
  },
  responseJsonSchema: (value, conv) => {
    conv.responseFormat = { type: "json_schema", schema: record(value) };
  },
};

function readGenerationConfig(value: unknown, conv: Conversation): void {
  const config = record(value);
  for (const [key, entry] of Object.entries(config)) {
    if (!given(entry)) continue;
    const reader = GENERATION[key];
    if (reader) reader(entry, conv, config);
    else conv.untranslatable.push(`generationConfig.${key}`);
  }
}

function readTools(value: unknown, conv: Conversation): void {
  list(value).forEach((item, index) => {
    for (const [key, entry] of Object.entries(record(item))) {
      if (key !== "functionDeclarations") {
        conv.untranslatable.push(`tools[${index}].${key}`);
        continue;
      }
      for (const declaration of list(entry)) {
        const fn = record(declaration);
        conv.tools.push({
          name: String(fn.name ?? ""),
          ...(typeof fn.description === "string" ? { description: fn.description } : {}),
          parameters: given(fn.parametersJsonSchema)
            ? record(fn.parametersJsonSchema)
            : given(fn.parameters)
              ? jsonSchemaOf(fn.parameters)
              : { type: "object", properties: {} },
        });
      }
    }
  });
}

function readToolConfig(value: unknown, conv: Conversation): void {
  const config = record(record(value).functionCallingConfig);
  const names = list(config.allowedFunctionNames).map(String);
  const mode = String(config.mode ?? "AUTO").toUpperCase();
  let choice: ToolChoice | undefined;
  if ((mode === "AUTO" || mode === "MODE_UNSPECIFIED") && names.length === 0)
    choice = { type: "auto" };
  else if (mode === "NONE") choice = { type: "none" };
  else if (mode === "ANY" && names.length === 0) choice = { type: "required" };
  else if (mode === "ANY" && names.length === 1 && names[0])
    choice = { type: "tool", name: names[0] };
  if (choice) conv.toolChoice = choice;
  else conv.untranslatable.push("toolConfig.functionCallingConfig");
  for (const key of Object.keys(record(value)))
    if (key !== "functionCallingConfig") conv.untranslatable.push(`toolConfig.${key}`);
}

const READERS: Record<string, Reader> = {
  contents: ignored,
  systemInstruction: (value, conv) =>
    addSystem(
      conv,
      list(record(value).parts).map((item, index) =>
        part(record(item), `systemInstruction.parts[${index}]`, new Calls()),
      ),
    ),
  generationConfig: readGenerationConfig,
  tools: readTools,
  toolConfig: readToolConfig,
  labels: ignored,
  serviceTier: ignored,
};

/**
 * Gemini may omit call ids. Calls get `call_<n>` in order; a response without an id
 * answers the earliest unanswered call of its name, as Gemini itself pairs them.
 */
class Calls {
  private count = 0;
  private readonly open = new Map<string, string[]>();
  call(name: string, id: unknown): string {
    const chosen = typeof id === "string" && id !== "" ? id : `call_${this.count}`;
    this.count += 1;
    this.open.set(name, [...(this.open.get(name) ?? []), chosen]);
    return chosen;
  }
  answer(name: string, id: unknown): string {
    const pending = this.open.get(name) ?? [];
    const matched = typeof id === "string" && id !== "" ? id : (pending[0] ?? `call_${name}`);
    this.open.set(
      name,
      pending.filter((entry) => entry !== matched),
    );
    return matched;
  }
}

function responseText(response: Json): { text: string; isError: boolean } {
  const keys = Object.keys(response);
  const only = keys.length === 1 ? keys[0] : undefined;
  if (only === "output" || only === "error") {
    const value = response[only];
    return {
      text: typeof value === "string" ? value : JSON.stringify(value),
      isError: only === "error",
    };
  }
  return { text: JSON.stringify(response), isError: false };
}

function part(value: Json, field: string, calls: Calls): Part {
  const textValue = text(value.text);
  if (textValue !== undefined && value.thought !== true) return { type: "text", text: textValue };
  const inline = record(value.inlineData);
  const mediaType = String(inline.mimeType ?? "");
  if (given(value.inlineData) && mediaType.startsWith("image/") && typeof inline.data === "string")
    return { type: "image", source: { kind: "base64", mediaType, data: inline.data } };
  if (given(value.functionCall)) {
    const call = record(value.functionCall);
    const name = String(call.name ?? "");
    return {
      type: "tool_call",
      id: calls.call(name, call.id),
      name,
      arguments: argumentsText(call.args),
    };
  }
  if (given(value.functionResponse)) {
    const response = record(value.functionResponse);
    const name = String(response.name ?? "");
    const { text: output, isError } = responseText(record(response.response));
    return {
      type: "tool_result",
      callId: calls.answer(name, response.id),
      name,
      content: [{ type: "text", text: output }],
      isError,
    };
  }
  const kind = Object.keys(value).find((key) => key !== "thoughtSignature") ?? "empty";
  const media = kind === "inlineData" || kind === "fileData";
  return { type: "opaque", field: `${field} (${kind === "text" ? "thought" : kind})`, media };
}

/** A generateContent request (checked by `GenerateContentRequest`) in neutral form. */
export function generateContentToNeutral(body: Json, path: GenerateContentPath): Conversation {
  const request = normalizeRequest(body);
  const conv = emptyConversation("generateContent", path.model);
  conv.stream = path.stream;
  conv.includeUsage = true;
  for (const [key, value] of Object.entries(request)) {
    const reader = Object.hasOwn(READERS, key) ? READERS[key] : undefined;
    if (reader) reader(value, conv);
    else if (given(value)) conv.untranslatable.push(key);
  }
  const calls = new Calls();
  list(request.contents).forEach((item, index) => {
    const content = record(item);
    const role = content.role === "model" ? "assistant" : "user";
    const parts = list(content.parts).map((entry, at) =>
      part(record(entry), `contents[${index}].parts[${at}]`, calls),
    );
    addTurn(conv, role, parts);
  });
  return conv;
}
