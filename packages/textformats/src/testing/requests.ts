import type { TextFormat } from "../formats.ts";
import type { Json } from "../read.ts";

/*
 * One conversation written in each format's own words, for tests: a system prompt, a user
 * turn with text and an image, an assistant turn with text and a get_weather call, the
 * tool's result with a follow-up question, the tool's definition, tool_choice auto,
 * temperature, top_p and an output cap. Translating any of these into another format
 * gives exactly that format's version.
 */

export const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const DATA_URL = `data:image/png;base64,${PNG}`;
const SCHEMA = {
  type: "object",
  properties: { city: { type: "string", description: "City name" } },
  required: ["city"],
};

export const CHAT_REQUEST: Json = {
  model: "m",
  messages: [
    { role: "system", content: "Be brief." },
    {
      role: "user",
      content: [
        { type: "text", text: "Weather where this photo was taken?" },
        { type: "image_url", image_url: { url: DATA_URL } },
      ],
    },
    {
      role: "assistant",
      content: "Let me check.",
      tool_calls: [
        {
          id: "call_0",
          type: "function",
          function: { name: "get_weather", arguments: '{"city":"Paris"}' },
        },
      ],
    },
    { role: "tool", tool_call_id: "call_0", content: "18C" },
    { role: "user", content: "And tomorrow?" },
  ],
  max_completion_tokens: 256,
  temperature: 0.5,
  top_p: 0.9,
  tools: [
    {
      type: "function",
      function: { name: "get_weather", description: "Weather for a city", parameters: SCHEMA },
    },
  ],
  tool_choice: "auto",
};

export const RESPONSES_REQUEST: Json = {
  model: "m",
  instructions: "Be brief.",
  input: [
    {
      type: "message",
      role: "user",
      content: [
        { type: "input_text", text: "Weather where this photo was taken?" },
        { type: "input_image", image_url: DATA_URL, detail: "auto" },
      ],
    },
    { type: "message", role: "assistant", content: "Let me check." },
    {
      type: "function_call",
      call_id: "call_0",
      name: "get_weather",
      arguments: '{"city":"Paris"}',
    },
    { type: "function_call_output", call_id: "call_0", output: "18C" },
    { type: "message", role: "user", content: [{ type: "input_text", text: "And tomorrow?" }] },
  ],
  store: false,
  max_output_tokens: 256,
  temperature: 0.5,
  top_p: 0.9,
  tools: [
    {
      type: "function",
      name: "get_weather",
      description: "Weather for a city",
      parameters: SCHEMA,
      strict: false,
    },
  ],
  tool_choice: "auto",
};

export const MESSAGES_REQUEST: Json = {
  model: "m",
  max_tokens: 256,
  system: "Be brief.",
  messages: [
    {
      role: "user",
      content: [
        { type: "text", text: "Weather where this photo was taken?" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Let me check." },
        { type: "tool_use", id: "call_0", name: "get_weather", input: { city: "Paris" } },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "call_0", content: "18C" },
        { type: "text", text: "And tomorrow?" },
      ],
    },
  ],
  temperature: 0.5,
  top_p: 0.9,
  tools: [{ name: "get_weather", description: "Weather for a city", input_schema: SCHEMA }],
  tool_choice: { type: "auto" },
};

export const GENERATE_CONTENT_REQUEST: Json = {
  contents: [
    {
      role: "user",
      parts: [
        { text: "Weather where this photo was taken?" },
        { inlineData: { mimeType: "image/png", data: PNG } },
      ],
    },
    {
      role: "model",
      parts: [
        { text: "Let me check." },
        { functionCall: { name: "get_weather", args: { city: "Paris" } } },
      ],
    },
    {
      role: "user",
      parts: [
        { functionResponse: { name: "get_weather", response: { output: "18C" } } },
        { text: "And tomorrow?" },
      ],
    },
  ],
  systemInstruction: { parts: [{ text: "Be brief." }] },
  generationConfig: { maxOutputTokens: 256, temperature: 0.5, topP: 0.9 },
  tools: [
    {
      functionDeclarations: [
        { name: "get_weather", description: "Weather for a city", parametersJsonSchema: SCHEMA },
      ],
    },
  ],
  toolConfig: { functionCallingConfig: { mode: "AUTO" } },
};

export const REQUESTS: Record<TextFormat, Json> = {
  chat: CHAT_REQUEST,
  responses: RESPONSES_REQUEST,
  messages: MESSAGES_REQUEST,
  generateContent: GENERATE_CONTENT_REQUEST,
};

/** generateContent's model and stream choice, which its path carries. */
export const PATH = { model: "m", stream: false };
