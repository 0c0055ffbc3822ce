import type { Conversation, ImagePart, Part } from "./neutral.ts";

/** A part that is non-text input in the sense of spec 4.11 (image, audio, file, document). */
function isMedia(part: Part): boolean {
  if (part.type === "image") return true;
  if (part.type === "opaque") return part.media;
  if (part.type === "tool_result") return part.content.some(isMedia);
  return false;
}

/** Whether the request has any non-text content part (spec 4.11: no header then). */
export const hasMedia = (conv: Conversation): boolean =>
  conv.messages.some((message) => message.parts.some(isMedia));

/**
 * The output cap the client asked for: max_completion_tokens (else max_tokens) for chat,
 * max_output_tokens for responses, max_tokens for messages, generationConfig.maxOutputTokens
 * for generateContent. Undefined when the client set none (the model's default applies).
 */
export const outputCap = (conv: Conversation): number | undefined => conv.maxOutputTokens;

/**
 * The local count's input: the request as a message-API body in the shape count_tokens
 * (`countRequestTokens` of @gw/tokens) takes, so the gateway's estimate of a request of
 * any format is what count_tokens gives for the same content. Later system messages join
 * the system prompt; content with no neutral form (audio, files) is left out — a request
 * with such parts has media, and no overhead header is given for it anyway.
 */
export interface CountableRequest {
  model: string;
  system?: string;
  messages: { role: "user" | "assistant"; content: CountableBlock[] }[];
  tools?: { name: string; description?: string; input_schema: Record<string, unknown> }[];
}

export type CountableBlock =
  | { type: "text"; text: string }
  | CountableImage
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | {
      type: "tool_result";
      tool_use_id: string;
      content: (CountableImage | { type: "text"; text: string })[];
    };

type CountableImage = {
  type: "image";
  source: { type: "base64"; media_type: string; data: string } | { type: "url"; url: string };
};

const image = (part: ImagePart): CountableImage => ({
  type: "image",
  source:
    part.source.kind === "url"
      ? { type: "url", url: part.source.url }
      : { type: "base64", media_type: part.source.mediaType, data: part.source.data },
});

function parsedInput(argumentsJson: string): unknown {
  try {
    return argumentsJson.trim() === "" ? {} : JSON.parse(argumentsJson);
  } catch {
    // Arguments that are not JSON are counted as the text they are.
    return argumentsJson;
  }
}

function block(part: Part): CountableBlock | undefined {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image":
      return image(part);
    case "tool_call":
      return { type: "tool_use", id: part.id, name: part.name, input: parsedInput(part.arguments) };
    case "tool_result":
      return {
        type: "tool_result",
        tool_use_id: part.callId,
        content: part.content.flatMap(
          (item): (CountableImage | { type: "text"; text: string })[] =>
            item.type === "text" ? [item] : item.type === "image" ? [image(item)] : [],
        ),
      };
    default:
      return undefined;
  }
}

export function countableRequest(conv: Conversation): CountableRequest {
  const system = [...conv.system];
  const messages: CountableRequest["messages"] = [];
  for (const message of conv.messages) {
    if (message.role === "system") {
      for (const part of message.parts) if (part.type === "text") system.push(part.text);
      continue;
    }
    const content = message.parts.flatMap((part) => block(part) ?? []);
    messages.push({ role: message.role, content });
  }
  const tools = conv.tools.map((tool) => ({
    name: tool.name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    input_schema: tool.parameters,
  }));
  return {
    model: conv.model,
    ...(system.length > 0 ? { system: system.join("\n") } : {}),
    messages,
    ...(tools.length > 0 ? { tools } : {}),
  };
}
