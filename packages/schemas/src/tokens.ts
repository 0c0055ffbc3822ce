import { type Static, Type } from "@sinclair/typebox";

// Blocks accept the fields real clients attach (cache_control, citations); the request
// itself refuses fields the message API does not have.
const open = { additionalProperties: true };
const MAX_TEXT = 2_000_000;

const TextBlock = Type.Object(
  { type: Type.Literal("text"), text: Type.String({ maxLength: MAX_TEXT }) },
  open,
);
const ImageBlock = Type.Object(
  {
    type: Type.Literal("image"),
    source: Type.Union([
      Type.Object(
        {
          type: Type.Literal("base64"),
          media_type: Type.String({ maxLength: 100 }),
          data: Type.String({ maxLength: 30_000_000 }),
        },
        open,
      ),
      Type.Object({ type: Type.Literal("url"), url: Type.String({ maxLength: 8_192 }) }, open),
    ]),
  },
  open,
);
const ToolUseBlock = Type.Object(
  {
    type: Type.Literal("tool_use"),
    id: Type.String({ maxLength: 256 }),
    name: Type.String({ maxLength: 256 }),
    input: Type.Unknown(),
  },
  open,
);
const ToolResultBlock = Type.Object(
  {
    type: Type.Literal("tool_result"),
    tool_use_id: Type.String({ maxLength: 256 }),
    content: Type.Optional(
      Type.Union([
        Type.String({ maxLength: MAX_TEXT }),
        Type.Array(Type.Union([TextBlock, ImageBlock]), { maxItems: 1000 }),
      ]),
    ),
    is_error: Type.Optional(Type.Boolean()),
  },
  open,
);

/** POST /v1/messages/count_tokens (spec 4.9): a message-API request, counted locally. */
export const CountTokensRequest = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 200 }),
    messages: Type.Array(
      Type.Object(
        {
          role: Type.Union([Type.Literal("user"), Type.Literal("assistant")]),
          content: Type.Union([
            Type.String({ maxLength: MAX_TEXT }),
            Type.Array(Type.Union([TextBlock, ImageBlock, ToolUseBlock, ToolResultBlock]), {
              maxItems: 10_000,
            }),
          ]),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 100_000 },
    ),
    system: Type.Optional(
      Type.Union([Type.String({ maxLength: MAX_TEXT }), Type.Array(TextBlock, { maxItems: 1000 })]),
    ),
    tools: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 256 }),
            description: Type.Optional(Type.String({ maxLength: 100_000 })),
            input_schema: Type.Object({}, { additionalProperties: true }),
          },
          open,
        ),
        { maxItems: 1000 },
      ),
    ),
    // Accepted because message-API clients send them; they do not change the count.
    tool_choice: Type.Optional(Type.Unknown()),
    thinking: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
export type CountTokensRequest = Static<typeof CountTokensRequest>;

export const CountTokensResponse = Type.Object({
  input_tokens: Type.Integer({
    minimum: 0,
    description:
      "Local estimate with the model's tokenizer; the provider's final usage may differ.",
  }),
});
export type CountTokensResponse = Static<typeof CountTokensResponse>;
