import { imageToUrl } from "../images.ts";
import type { Conversation, ImagePart, Message, TextPart, ToolChoice } from "../neutral.ts";
import { type FormatError, type Outcome, ok, refuse } from "../outcome.ts";
import { compact, type Json } from "../read.ts";
import { clientField, commonRefusal } from "../refusals.ts";

type Written = { ok: true; items: Json[] } | FormatError;

const inputPart = (part: TextPart | ImagePart): Json =>
  part.type === "text"
    ? { type: "input_text", text: part.text }
    : { type: "input_image", image_url: imageToUrl(part.source), detail: "auto" };

function userItems(message: Message): Written {
  const items: Json[] = [];
  const content: Json[] = [];
  for (const part of message.parts) {
    if (part.type === "tool_result") {
      if (part.isError) return refuse("a tool result marked as an error (is_error)", "responses");
      const onlyText = part.content.every((item) => item.type === "text");
      const output = onlyText
        ? part.content.map((item) => (item.type === "text" ? item.text : "")).join("\n")
        : part.content.flatMap((item) => (item.type === "opaque" ? [] : [inputPart(item)]));
      items.push({ type: "function_call_output", call_id: part.callId, output });
    } else if (part.type === "text" || part.type === "image") content.push(inputPart(part));
    else return refuse(`a ${part.type} part in a user turn`, "responses");
  }
  if (content.length > 0) items.push({ type: "message", role: "user", content });
  return { ok: true, items };
}

function assistantItems(message: Message): Written {
  const items: Json[] = [];
  for (const part of message.parts) {
    if (part.type === "text")
      items.push({ type: "message", role: "assistant", content: part.text });
    else if (part.type === "tool_call")
      items.push({
        type: "function_call",
        call_id: part.id,
        name: part.name,
        arguments: part.arguments,
      });
    else return refuse(`a ${part.type} part in an assistant turn`, "responses");
  }
  return { ok: true, items };
}

function systemItems(message: Message): Written {
  const content: Json[] = [];
  for (const part of message.parts) {
    if (part.type !== "text") return refuse(`a ${part.type} part in a system message`, "responses");
    content.push({ type: "input_text", text: part.text });
  }
  return { ok: true, items: [{ type: "message", role: "system", content }] };
}

function inputItems(conv: Conversation): Written {
  const items: Json[] = [];
  for (const message of conv.messages) {
    const written =
      message.role === "user"
        ? userItems(message)
        : message.role === "assistant"
          ? assistantItems(message)
          : systemItems(message);
    if (!written.ok) return written;
    items.push(...written.items);
  }
  return { ok: true, items };
}

function toolChoice(choice: ToolChoice | undefined): unknown {
  if (!choice) return undefined;
  return choice.type === "tool" ? { type: "function", name: choice.name } : choice.type;
}

function textConfig(conv: Conversation): Json | undefined {
  const format = conv.responseFormat;
  const written =
    format?.type === "json_schema"
      ? compact({
          type: "json_schema",
          name: format.name ?? "response",
          description: format.description,
          schema: format.schema,
          strict: format.strict,
        })
      : format;
  if (!written && conv.verbosity === undefined) return undefined;
  return compact({ format: written, verbosity: conv.verbosity });
}

/**
 * A neutral conversation as a responses request. `store` is false: the client of another
 * format cannot continue from a stored response, so nothing is kept upstream. Function
 * tools send `strict` explicitly, because the Responses API makes an unset one strict.
 */
export function neutralToResponses(conv: Conversation): Outcome<Json> {
  const refusal = commonRefusal(conv, "responses");
  if (refusal) return refusal;
  if (conv.stop.length > 0) return refuse(clientField(conv, "stop"), "responses");
  const input = inputItems(conv);
  if (!input.ok) return input;
  const tools = conv.tools.map((tool) =>
    compact({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      strict: tool.strict ?? false,
    }),
  );
  return ok(
    compact({
      model: conv.model,
      instructions: conv.system.length > 0 ? conv.system.join("\n") : undefined,
      input: input.items,
      stream: conv.stream ? true : undefined,
      store: false,
      max_output_tokens: conv.maxOutputTokens,
      temperature: conv.temperature,
      top_p: conv.topP,
      tools: tools.length > 0 ? tools : undefined,
      tool_choice: toolChoice(conv.toolChoice),
      parallel_tool_calls: conv.parallelToolCalls,
      text: textConfig(conv),
      reasoning: conv.reasoningEffort !== undefined ? { effort: conv.reasoningEffort } : undefined,
    }),
  );
}
