import { type Static, Type } from "@sinclair/typebox";
import {
  MAX_MESSAGES,
  MAX_MODEL_CHARS,
  MAX_OUTPUT_TOKENS,
  MAX_PARTS,
  MAX_STOP,
} from "../limits.ts";

// Strict where the gateway reads (model, messages, the output cap, the stream flags);
// open everywhere else, so a same-format call passes every field the upstream accepts.
const open = { additionalProperties: true };
const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()]));
const OutputCap = Type.Integer({ minimum: 1, maximum: MAX_OUTPUT_TOKENS });

const ContentPart = Type.Object({ type: Type.String({ maxLength: 64 }) }, open);
const Content = Type.Union([
  Type.String(),
  Type.Array(ContentPart, { maxItems: MAX_PARTS }),
  Type.Null(),
]);

const ChatMessage = Type.Object(
  {
    role: Type.Union([
      Type.Literal("developer"),
      Type.Literal("system"),
      Type.Literal("user"),
      Type.Literal("assistant"),
      Type.Literal("tool"),
      Type.Literal("function"),
    ]),
    content: Type.Optional(Content),
  },
  open,
);

/** POST /v1/chat/completions, as the OpenAI Chat Completions API takes it. */
export const ChatRequest = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: MAX_MODEL_CHARS }),
    messages: Type.Array(ChatMessage, { minItems: 1, maxItems: MAX_MESSAGES }),
    max_tokens: nullable(OutputCap),
    max_completion_tokens: nullable(OutputCap),
    stream: nullable(Type.Boolean()),
    stream_options: nullable(Type.Object({ include_usage: Type.Optional(Type.Boolean()) }, open)),
    stop: nullable(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: MAX_STOP })])),
  },
  { ...open, description: "An OpenAI Chat Completions request." },
);
export type ChatRequest = Static<typeof ChatRequest>;
