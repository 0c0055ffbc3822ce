import { type Static, Type } from "@sinclair/typebox";
import {
  MAX_MESSAGES,
  MAX_MODEL_CHARS,
  MAX_OUTPUT_TOKENS,
  MAX_PARTS,
  MAX_STOP,
} from "../limits.ts";

// Strict where the gateway reads (model, messages, max_tokens, stream); open everywhere
// else, so a same-format call passes every field the upstream accepts.
const open = { additionalProperties: true };

const Block = Type.Object({ type: Type.String({ maxLength: 64 }) }, open);
const TextBlock = Type.Object({ type: Type.Literal("text"), text: Type.String() }, open);

const MessageParam = Type.Object(
  {
    role: Type.Union([Type.Literal("user"), Type.Literal("assistant"), Type.Literal("system")]),
    content: Type.Union([Type.String(), Type.Array(Block, { maxItems: MAX_PARTS })]),
  },
  open,
);

/** POST /v1/messages, as the Anthropic Messages API takes it. */
export const MessagesRequest = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: MAX_MODEL_CHARS }),
    messages: Type.Array(MessageParam, { minItems: 1, maxItems: MAX_MESSAGES }),
    max_tokens: Type.Integer({ minimum: 1, maximum: MAX_OUTPUT_TOKENS }),
    stream: Type.Optional(Type.Boolean()),
    system: Type.Optional(
      Type.Union([Type.String(), Type.Array(TextBlock, { maxItems: MAX_PARTS })]),
    ),
    stop_sequences: Type.Optional(Type.Array(Type.String(), { maxItems: MAX_STOP })),
  },
  { ...open, description: "An Anthropic Messages request." },
);
export type MessagesRequest = Static<typeof MessagesRequest>;
