import { type Static, Type } from "@sinclair/typebox";
import { MAX_MESSAGES, MAX_OUTPUT_TOKENS, MAX_PARTS } from "../limits.ts";

// The model and the stream choice are in the path (`models/{model}:streamGenerateContent`).
// Google's JSON mapping takes both lowerCamel and snake_case names, so both are checked.
// Strict where the gateway reads (contents, the output cap); open everywhere else.
const open = { additionalProperties: true };
const OutputCap = Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_OUTPUT_TOKENS }));

const Content = Type.Object(
  {
    role: Type.Optional(Type.String({ maxLength: 32 })),
    parts: Type.Array(Type.Object({}, open), { maxItems: MAX_PARTS }),
  },
  open,
);
const GenerationConfig = Type.Object(
  { maxOutputTokens: OutputCap, max_output_tokens: OutputCap },
  open,
);

/** POST /v1beta/models/{model}:generateContent, as the Gemini API takes it. */
export const GenerateContentRequest = Type.Object(
  {
    contents: Type.Array(Content, { minItems: 1, maxItems: MAX_MESSAGES }),
    systemInstruction: Type.Optional(Content),
    system_instruction: Type.Optional(Content),
    generationConfig: Type.Optional(GenerationConfig),
    generation_config: Type.Optional(GenerationConfig),
  },
  { ...open, description: "A Gemini generateContent request (the model is in the path)." },
);
export type GenerateContentRequest = Static<typeof GenerateContentRequest>;
