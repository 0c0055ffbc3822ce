import { type Static, Type } from "@sinclair/typebox";
import { MAX_MESSAGES, MAX_MODEL_CHARS, MAX_OUTPUT_TOKENS } from "../limits.ts";

// Strict where the gateway reads (model, input, the output cap, the stream flag); open
// everywhere else, so a same-format call passes every field the upstream accepts.
const open = { additionalProperties: true };
const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()]));

const InputItem = Type.Object({ type: Type.Optional(Type.String({ maxLength: 64 })) }, open);

/** POST /v1/responses, as the OpenAI Responses API takes it (the gateway needs `model`). */
export const ResponsesRequest = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: MAX_MODEL_CHARS }),
    input: Type.Union([Type.String(), Type.Array(InputItem, { maxItems: MAX_MESSAGES })]),
    instructions: nullable(Type.String()),
    max_output_tokens: nullable(Type.Integer({ minimum: 1, maximum: MAX_OUTPUT_TOKENS })),
    stream: nullable(Type.Boolean()),
  },
  { ...open, description: "An OpenAI Responses request." },
);
export type ResponsesRequest = Static<typeof ResponsesRequest>;
