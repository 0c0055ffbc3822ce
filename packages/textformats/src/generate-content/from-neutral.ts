import { argumentsObject } from "../arguments.ts";
import type { Conversation, Message, ToolChoice, ToolResultPart } from "../neutral.ts";
import { type FormatError, invalid, type Outcome, ok, refuse } from "../outcome.ts";
import { compact, type Json } from "../read.ts";
import { clientField, commonRefusal } from "../refusals.ts";

type Parts = { ok: true; parts: Json[] } | FormatError;

function functionResponse(part: ToolResultPart): { ok: true; part: Json } | FormatError {
  if (part.name === undefined)
    return invalid(`the tool result for call ${part.callId} answers no earlier tool call`);
  if (part.content.some((item) => item.type !== "text"))
    return refuse("an image in a tool result", "generateContent");
  const output = part.content.map((item) => (item.type === "text" ? item.text : "")).join("\n");
  // Gemini's convention: the function's answer under "output", a failure under "error".
  const response = part.isError ? { error: output } : { output };
  return { ok: true, part: { functionResponse: { name: part.name, response } } };
}

function turnParts(message: Message, at: string): Parts {
  const parts: Json[] = [];
  for (const part of message.parts) {
    if (part.type === "text") parts.push({ text: part.text });
    else if (part.type === "image") {
      if (part.source.kind === "url")
        return refuse("an image given by URL", "generateContent", "send it as base64 data");
      parts.push({ inlineData: { mimeType: part.source.mediaType, data: part.source.data } });
    } else if (part.type === "tool_call") {
      const args = argumentsObject(part.arguments, at);
      if (!args.ok) return args;
      parts.push({ functionCall: { name: part.name, args: args.value } });
    } else if (part.type === "tool_result") {
      const written = functionResponse(part);
      if (!written.ok) return written;
      parts.push(written.part);
    } else return refuse(part.field, "generateContent");
  }
  return { ok: true, parts };
}

function contents(conv: Conversation): { ok: true; contents: Json[] } | FormatError {
  const out: Json[] = [];
  let previous: Json | undefined;
  for (const [index, message] of conv.messages.entries()) {
    if (message.role === "system")
      return refuse("a system message after the conversation started", "generateContent");
    const written = turnParts(message, `turn ${index}`);
    if (!written.ok) return written;
    const role = message.role === "assistant" ? "model" : "user";
    if (previous && previous.role === role) (previous.parts as Json[]).push(...written.parts);
    else {
      previous = { role, parts: written.parts };
      out.push(previous);
    }
  }
  return { ok: true, contents: out };
}

function toolConfig(choice: ToolChoice | undefined): Json | undefined {
  if (!choice) return undefined;
  const config =
    choice.type === "tool"
      ? { mode: "ANY", allowedFunctionNames: [choice.name] }
      : { mode: choice.type === "required" ? "ANY" : choice.type.toUpperCase() };
  return { functionCallingConfig: config };
}

function generationConfig(conv: Conversation): Json | undefined {
  const format = conv.responseFormat;
  const config = compact({
    maxOutputTokens: conv.maxOutputTokens,
    temperature: conv.temperature,
    topP: conv.topP,
    topK: conv.topK,
    seed: conv.seed,
    presencePenalty: conv.presencePenalty,
    frequencyPenalty: conv.frequencyPenalty,
    stopSequences: conv.stop.length > 0 ? conv.stop : undefined,
    responseMimeType: format ? "application/json" : undefined,
    responseJsonSchema: format?.type === "json_schema" ? format.schema : undefined,
  });
  return Object.keys(config).length > 0 ? config : undefined;
}

function refusal(conv: Conversation): FormatError | undefined {
  const common = commonRefusal(conv, "generateContent");
  if (common) return common;
  if (conv.parallelToolCalls === false)
    return refuse(clientField(conv, "parallelToolCalls"), "generateContent");
  const strict = conv.tools.findIndex((tool) => tool.strict === true);
  if (strict !== -1) return refuse(`tools[${strict}] strict`, "generateContent");
  return undefined;
}

/**
 * A neutral conversation as a generateContent body. The model and the stream choice go
 * in the path (`models/{model}:streamGenerateContent?alt=sse`), from `conv.model` and
 * `conv.stream`. Calls carry no ids: Gemini pairs calls and responses by name and order.
 */
export function neutralToGenerateContent(conv: Conversation): Outcome<Json> {
  const refused = refusal(conv);
  if (refused) return refused;
  const written = contents(conv);
  if (!written.ok) return written;
  const declarations = conv.tools.map((tool) =>
    compact({
      name: tool.name,
      description: tool.description,
      parametersJsonSchema: tool.parameters,
    }),
  );
  return ok(
    compact({
      contents: written.contents,
      systemInstruction:
        conv.system.length > 0 ? { parts: conv.system.map((text) => ({ text })) } : undefined,
      generationConfig: generationConfig(conv),
      tools: declarations.length > 0 ? [{ functionDeclarations: declarations }] : undefined,
      toolConfig: toolConfig(conv.toolChoice),
    }),
  );
}
