import { count } from "ai-tokenizer/sdk";
import { base64ImageTokens, UNKNOWN_IMAGE_TOKENS } from "./images.ts";
import type { TokenizerProfile } from "./profiles.ts";

/** A message-API request as `/v1/messages/count_tokens` takes it (validated by its schema). */
export interface CountTokensRequest {
  model: string;
  system?: string | TextBlock[];
  messages: { role: "user" | "assistant"; content: string | ContentBlock[] }[];
  tools?: { name: string; description?: string; input_schema: JsonSchema }[];
}

export interface TextBlock {
  type: "text";
  text: string;
}
export interface ImageBlock {
  type: "image";
  source: { type: "base64"; media_type: string; data: string } | { type: "url"; url: string };
}
export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}
export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content?: string | (TextBlock | ImageBlock)[];
  is_error?: boolean;
}
export type ContentBlock = TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock;

export interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  enum?: unknown[];
}

/** ai-tokenizer's SDK shape: AI SDK messages and tools with schemas it can walk. */
type SdkPart =
  | { type: "text"; text: string }
  | { type: "tool-call"; toolName: string; input: unknown }
  | { type: "tool-result"; toolCallId: string; output: string };
type SdkMessage = { role: string; content: string | SdkPart[] };
interface SchemaNode {
  description?: string;
  _def: {
    type: string;
    shape?: Record<string, SchemaNode>;
    element?: SchemaNode;
    values?: unknown[];
  };
}

/** A JSON Schema in the walkable form ai-tokenizer reads tool input schemas in. */
function schemaNode(schema: JsonSchema): SchemaNode {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const node: SchemaNode = {
    ...(schema.description ? { description: schema.description } : {}),
    _def: { type: schema.enum ? "enum" : (type ?? "any") },
  };
  if (schema.enum) node._def.values = schema.enum;
  if (type === "object" && schema.properties)
    node._def.shape = Object.fromEntries(
      Object.entries(schema.properties).map(([key, value]) => [key, schemaNode(value)]),
    );
  if (type === "array" && schema.items) node._def.element = schemaNode(schema.items);
  return node;
}

const textOf = (content: string | (TextBlock | ImageBlock)[] | undefined) =>
  typeof content === "string"
    ? content
    : (content ?? [])
        .filter((block): block is TextBlock => block.type === "text")
        .map((block) => block.text)
        .join("\n");

function imageTokens(block: ImageBlock): number {
  return block.source.type === "base64"
    ? base64ImageTokens(block.source.data)
    : UNKNOWN_IMAGE_TOKENS;
}

/**
 * Input tokens of a message-API request, counted locally with the model's tokenizer
 * profile (ai-tokenizer: its encoding for the text, its per-message and per-tool
 * overheads around it), plus images by their pixel size. No provider is called.
 */
export function countRequestTokens(profile: TokenizerProfile, request: CountTokensRequest): number {
  let images = 0;
  const messages: SdkMessage[] = [];
  if (request.system !== undefined && textOf(request.system) !== "")
    messages.push({ role: "system", content: textOf(request.system) });
  for (const message of request.messages) {
    if (typeof message.content === "string") {
      messages.push({ role: message.role, content: message.content });
      continue;
    }
    const parts: SdkPart[] = [];
    for (const block of message.content) {
      if (block.type === "text") parts.push({ type: "text", text: block.text });
      else if (block.type === "image") images += imageTokens(block);
      else if (block.type === "tool_use")
        parts.push({ type: "tool-call", toolName: block.name, input: block.input });
      else {
        for (const inner of Array.isArray(block.content) ? block.content : [])
          if (inner.type === "image") images += imageTokens(inner);
        parts.push({
          type: "tool-result",
          toolCallId: block.tool_use_id,
          output: textOf(block.content),
        });
      }
    }
    messages.push({ role: message.role, content: parts });
  }
  const tools = Object.fromEntries(
    (request.tools ?? []).map((tool) => [
      tool.name,
      { description: tool.description, inputSchema: schemaNode(tool.input_schema) },
    ]),
  );
  const counted = count({
    tokenizer: profile.tokenizer,
    model: { tokens: profile.tokens },
    messages,
    tools,
  } as unknown as Parameters<typeof count>[0]);
  return Math.max(0, counted.total) + images;
}
