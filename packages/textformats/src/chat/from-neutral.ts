import { imageToUrl } from "../images.ts";
import type { Conversation, Message, ResponseFormat, ToolChoice } from "../neutral.ts";
import { type FormatError, type Outcome, ok, refuse } from "../outcome.ts";
import { compact, type Json } from "../read.ts";
import { commonRefusal } from "../refusals.ts";

export interface ChatWriteOptions {
  /**
   * The output-cap field to send. OpenAI's current name (reasoning models accept no other)
   * is the default; some OpenAI-compatible servers know only `max_tokens`.
   */
  maxTokensField?: "max_completion_tokens" | "max_tokens";
}

type Written = { ok: true; messages: Json[] } | FormatError;

function userMessages(message: Message): Written {
  const out: Json[] = [];
  const content: Json[] = [];
  for (const part of message.parts) {
    if (part.type === "tool_result") {
      if (part.isError) return refuse("a tool result marked as an error (is_error)", "chat");
      if (part.content.some((item) => item.type !== "text"))
        return refuse("an image in a tool result", "chat");
      const texts = part.content.map((item) => (item.type === "text" ? item.text : ""));
      out.push({ role: "tool", tool_call_id: part.callId, content: texts.join("\n") });
    } else if (part.type === "text") content.push({ type: "text", text: part.text });
    else if (part.type === "image")
      content.push({ type: "image_url", image_url: { url: imageToUrl(part.source) } });
    else return refuse(`a ${part.type} part in a user turn`, "chat");
  }
  if (content.length > 0) out.push({ role: "user", content: contentValue(content) });
  return { ok: true, messages: out };
}

/** One text part goes as a plain string, as most chat clients send it. */
const contentValue = (content: Json[]) =>
  content.length === 1 && content[0]?.type === "text" ? content[0].text : content;

function assistantMessage(message: Message): Written {
  const texts: string[] = [];
  const calls: Json[] = [];
  for (const part of message.parts) {
    if (part.type === "text") texts.push(part.text);
    else if (part.type === "tool_call")
      calls.push({
        id: part.id,
        type: "function",
        function: { name: part.name, arguments: part.arguments },
      });
    else return refuse(`a ${part.type} part in an assistant turn`, "chat");
  }
  const content = texts.length > 0 ? texts.join("") : null;
  const written: Json = { role: "assistant", content };
  if (calls.length > 0) written.tool_calls = calls;
  return { ok: true, messages: [written] };
}

function systemMessage(message: Message): Written {
  const texts: string[] = [];
  for (const part of message.parts) {
    if (part.type !== "text") return refuse(`a ${part.type} part in a system message`, "chat");
    texts.push(part.text);
  }
  return { ok: true, messages: [{ role: "system", content: texts.join("\n") }] };
}

function chatMessages(conv: Conversation): Written {
  const messages: Json[] = [];
  if (conv.system.length > 0)
    messages.push({
      role: "system",
      content:
        conv.system.length === 1
          ? conv.system[0]
          : conv.system.map((text) => ({ type: "text", text })),
    });
  for (const message of conv.messages) {
    const written =
      message.role === "user"
        ? userMessages(message)
        : message.role === "assistant"
          ? assistantMessage(message)
          : systemMessage(message);
    if (!written.ok) return written;
    const previous = messages.at(-1);
    const next = written.messages[0];
    if (message.role === "assistant" && previous?.role === "assistant" && next)
      mergeAssistant(previous, next);
    else messages.push(...written.messages);
  }
  return { ok: true, messages };
}

/** Consecutive assistant turns (a text item, then call items) are one chat message. */
function mergeAssistant(into: Json, next: Json): void {
  if (typeof next.content === "string")
    into.content = typeof into.content === "string" ? into.content + next.content : next.content;
  if (Array.isArray(next.tool_calls))
    into.tool_calls = [
      ...(Array.isArray(into.tool_calls) ? into.tool_calls : []),
      ...next.tool_calls,
    ];
}

function toolChoice(choice: ToolChoice | undefined): unknown {
  if (!choice) return undefined;
  if (choice.type === "tool") return { type: "function", function: { name: choice.name } };
  return choice.type;
}

function responseFormat(format: ResponseFormat | undefined): unknown {
  if (!format || format.type === "json_object") return format;
  return {
    type: "json_schema",
    json_schema: compact({
      name: format.name ?? "response",
      description: format.description,
      schema: format.schema,
      strict: format.strict,
    }),
  };
}

/**
 * A neutral conversation as a chat completions request. Streams always ask for usage
 * (`stream_options.include_usage`): the gateway charges by it.
 */
export function neutralToChat(conv: Conversation, options: ChatWriteOptions = {}): Outcome<Json> {
  const refusal = commonRefusal(conv, "chat");
  if (refusal) return refusal;
  const messages = chatMessages(conv);
  if (!messages.ok) return messages;
  const tools = conv.tools.map((tool) => ({
    type: "function",
    function: compact({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      // false is the default here; only a strict tool says something.
      strict: tool.strict === true ? true : undefined,
    }),
  }));
  return ok(
    compact({
      model: conv.model,
      messages: messages.messages,
      stream: conv.stream ? true : undefined,
      stream_options: conv.stream ? { include_usage: true } : undefined,
      [options.maxTokensField ?? "max_completion_tokens"]: conv.maxOutputTokens,
      temperature: conv.temperature,
      top_p: conv.topP,
      seed: conv.seed,
      presence_penalty: conv.presencePenalty,
      frequency_penalty: conv.frequencyPenalty,
      stop: conv.stop.length > 0 ? conv.stop : undefined,
      tools: tools.length > 0 ? tools : undefined,
      tool_choice: toolChoice(conv.toolChoice),
      parallel_tool_calls: conv.parallelToolCalls,
      response_format: responseFormat(conv.responseFormat),
      reasoning_effort: conv.reasoningEffort,
      verbosity: conv.verbosity,
    }),
  );
}
