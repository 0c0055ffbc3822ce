// Proves the settings some formats share translate where the target has them: tool choice,
// parallel calls, structured output, seed and penalties, top_k, reasoning effort and
// verbosity, several system texts, image URLs, error tool results, and Gemini's
// snake_case spelling and OpenAPI-style parameter schemas.
import { describe, expect, test } from "bun:test";
import type { TextFormat } from "./formats.ts";
import type { Json } from "./read.ts";
import { toNeutral, translateRequest } from "./requests.ts";

const HI = [{ role: "user", content: "Hi" }];
const TOOL = { type: "function", function: { name: "f", parameters: { type: "object" } } };
const fromChat = (to: TextFormat, extra: Json) => {
  const result = translateRequest(
    "chat",
    to,
    { model: "m", messages: HI, tools: [TOOL], ...extra },
    {
      defaultMaxTokens: 8,
    },
  );
  if (!result.ok) throw new Error(result.message);
  return result.value;
};

describe("tool choice", () => {
  const choices: [unknown, Json, Json, unknown][] = [
    ["required", { type: "any" }, { mode: "ANY" }, "required"],
    ["none", { type: "none" }, { mode: "NONE" }, "none"],
    [
      { type: "function", function: { name: "f" } },
      { type: "tool", name: "f" },
      { mode: "ANY", allowedFunctionNames: ["f"] },
      { type: "function", name: "f" },
    ],
  ];
  test.each(choices)("chat %p", (choice, messages, gemini, responses) => {
    expect(fromChat("messages", { tool_choice: choice }).tool_choice).toEqual(messages);
    expect(fromChat("generateContent", { tool_choice: choice }).toolConfig).toEqual({
      functionCallingConfig: gemini,
    });
    expect(fromChat("responses", { tool_choice: choice }).tool_choice).toEqual(responses);
  });

  test("one call at a time: parallel_tool_calls false ↔ disable_parallel_tool_use", () => {
    expect(fromChat("messages", { parallel_tool_calls: false }).tool_choice).toEqual({
      type: "auto",
      disable_parallel_tool_use: true,
    });
    expect(
      fromChat("messages", { parallel_tool_calls: false, tool_choice: "required" }).tool_choice,
    ).toEqual({ type: "any", disable_parallel_tool_use: true });
    const back = translateRequest("messages", "chat", {
      model: "m",
      max_tokens: 8,
      messages: HI,
      tool_choice: { type: "auto", disable_parallel_tool_use: true },
    });
    expect(back.ok && back.value).toMatchObject({
      tool_choice: "auto",
      parallel_tool_calls: false,
    });
  });

  test("Gemini ANY with one allowed name is a named choice", () => {
    const conv = toNeutral(
      "generateContent",
      {
        contents: [{ parts: [{ text: "Hi" }] }],
        toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["f"] } },
      },
      { model: "g", stream: false },
    );
    expect(conv.toolChoice).toEqual({ type: "tool", name: "f" });
  });
});

describe("structured output", () => {
  const schema = { type: "object", properties: { a: { type: "string" } } };
  const format = {
    type: "json_schema",
    json_schema: { name: "answer", schema, strict: true },
  };

  test("a chat json_schema reaches every format's own field", () => {
    expect(fromChat("responses", { response_format: format }).text).toEqual({
      format: { type: "json_schema", name: "answer", schema, strict: true },
    });
    expect(fromChat("messages", { response_format: format }).output_config).toEqual({
      format: { type: "json_schema", schema },
    });
    expect(fromChat("generateContent", { response_format: format }).generationConfig).toEqual({
      responseMimeType: "application/json",
      responseJsonSchema: schema,
    });
  });

  test("Gemini JSON without a schema is chat's json_object", () => {
    const result = translateRequest(
      "generateContent",
      "chat",
      {
        contents: [{ parts: [{ text: "Hi" }] }],
        generationConfig: { responseMimeType: "application/json" },
      },
      { path: { model: "g", stream: false } },
    );
    expect(result.ok && result.value.response_format).toEqual({ type: "json_object" });
  });
});

describe("sampling settings", () => {
  test("seed and penalties: chat ↔ generateContent", () => {
    const extra = { seed: 7, presence_penalty: 0.5, frequency_penalty: 0.25 };
    expect(fromChat("generateContent", extra).generationConfig).toEqual({
      seed: 7,
      presencePenalty: 0.5,
      frequencyPenalty: 0.25,
    });
  });

  test("top_k: messages ↔ generateContent", () => {
    const result = translateRequest("messages", "generateContent", {
      model: "m",
      max_tokens: 8,
      messages: HI,
      top_k: 40,
    });
    expect(result.ok && result.value.generationConfig).toEqual({ maxOutputTokens: 8, topK: 40 });
  });

  test("reasoning effort and verbosity: chat ↔ responses", () => {
    const written = fromChat("responses", { reasoning_effort: "low", verbosity: "high" });
    expect(written).toMatchObject({ reasoning: { effort: "low" }, text: { verbosity: "high" } });
    const back = translateRequest("responses", "chat", {
      model: "m",
      input: "Hi",
      reasoning: { effort: "high" },
      text: { verbosity: "low" },
    });
    expect(back.ok && back.value).toMatchObject({ reasoning_effort: "high", verbosity: "low" });
  });

  test("chat max_tokens is read when max_completion_tokens is absent; the latter wins", () => {
    expect(toNeutral("chat", { model: "m", messages: HI, max_tokens: 5 }).maxOutputTokens).toBe(5);
    const both = { model: "m", messages: HI, max_tokens: 5, max_completion_tokens: 9 };
    expect(toNeutral("chat", both).maxOutputTokens).toBe(9);
  });

  test("a chat upstream that knows only max_tokens gets it", () => {
    const result = translateRequest(
      "messages",
      "chat",
      { model: "m", max_tokens: 8, messages: HI },
      {
        maxTokensField: "max_tokens",
      },
    );
    expect(result.ok && result.value.max_tokens).toBe(8);
  });
});

describe("content", () => {
  test("several system texts and developer messages", () => {
    const body = {
      model: "m",
      messages: [
        { role: "system", content: "One." },
        { role: "developer", content: [{ type: "text", text: "Two." }] },
        ...HI,
      ],
    };
    const toMessages = translateRequest("chat", "messages", body, { defaultMaxTokens: 8 });
    expect(toMessages.ok && toMessages.value.system).toEqual([
      { type: "text", text: "One." },
      { type: "text", text: "Two." },
    ]);
    const toGemini = translateRequest("chat", "generateContent", body);
    expect(toGemini.ok && toGemini.value.systemInstruction).toEqual({
      parts: [{ text: "One." }, { text: "Two." }],
    });
    const toResponses = translateRequest("chat", "responses", body);
    expect(toResponses.ok && toResponses.value.instructions).toBe("One.\nTwo.");
  });

  test("a later system message stays in place for responses", () => {
    const body = { model: "m", messages: [...HI, { role: "system", content: "Be terse." }] };
    const result = translateRequest("chat", "responses", body);
    expect(result.ok && result.value.input).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: "Hi" }] },
      { type: "message", role: "system", content: [{ type: "input_text", text: "Be terse." }] },
    ]);
  });

  test("an https image URL reaches messages and responses as a URL", () => {
    const url = "https://example.com/cat.png";
    const body = {
      model: "m",
      messages: [{ role: "user", content: [{ type: "image_url", image_url: { url } }] }],
    };
    const toMessages = translateRequest("chat", "messages", body, { defaultMaxTokens: 8 });
    expect(toMessages.ok && toMessages.value.messages).toEqual([
      { role: "user", content: [{ type: "image", source: { type: "url", url } }] },
    ]);
    const toResponses = translateRequest("chat", "responses", body);
    expect(toResponses.ok && toResponses.value.input).toEqual([
      {
        type: "message",
        role: "user",
        content: [{ type: "input_image", image_url: url, detail: "auto" }],
      },
    ]);
  });

  test("tool ids the messages API would refuse are mapped, the same way for call and result", () => {
    const body = {
      model: "m",
      messages: [
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "functions.f:0", type: "function", function: { name: "f", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: "functions.f:0", content: "ok" },
      ],
    };
    const result = translateRequest("chat", "messages", body, { defaultMaxTokens: 8 });
    expect(result.ok && result.value.messages).toEqual([
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "functions_f_0", name: "f", input: {} }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "functions_f_0", content: "ok" }],
      },
    ]);
  });

  test("an error tool result reaches Gemini under `error`", () => {
    const body = {
      model: "m",
      max_tokens: 8,
      messages: [
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "f", input: {} }] },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "t1", content: "boom", is_error: true }],
        },
      ],
    };
    const result = translateRequest("messages", "generateContent", body);
    expect(result.ok && result.value.contents).toEqual([
      { role: "model", parts: [{ functionCall: { name: "f", args: {} } }] },
      { role: "user", parts: [{ functionResponse: { name: "f", response: { error: "boom" } } }] },
    ]);
  });

  test("Gemini's snake_case spelling reads as its lowerCamel one", () => {
    const path = { model: "g", stream: false };
    const snake = {
      contents: [
        {
          role: "user",
          parts: [{ text: "Hi" }, { inline_data: { mime_type: "image/png", data: "AA" } }],
        },
      ],
      system_instruction: { parts: [{ text: "Be brief." }] },
      generation_config: { max_output_tokens: 9, stop_sequences: ["X"] },
    };
    const camel = {
      contents: [
        {
          role: "user",
          parts: [{ text: "Hi" }, { inlineData: { mimeType: "image/png", data: "AA" } }],
        },
      ],
      systemInstruction: { parts: [{ text: "Be brief." }] },
      generationConfig: { maxOutputTokens: 9, stopSequences: ["X"] },
    };
    expect(toNeutral("generateContent", snake, path)).toEqual(
      toNeutral("generateContent", camel, path),
    );
  });

  test("Gemini OpenAPI-style parameters become JSON Schema", () => {
    const conv = toNeutral(
      "generateContent",
      {
        contents: [{ parts: [{ text: "Hi" }] }],
        tools: [
          {
            functionDeclarations: [
              {
                name: "f",
                parameters: {
                  type: "OBJECT",
                  properties: {
                    city: { type: "STRING", nullable: true },
                    days: { type: "ARRAY", items: { type: "INTEGER" } },
                  },
                  required: ["city"],
                },
              },
            ],
          },
        ],
      },
      { model: "g", stream: false },
    );
    expect(conv.tools[0]?.parameters).toEqual({
      type: "object",
      properties: {
        city: { type: ["string", "null"] },
        days: { type: "array", items: { type: "integer" } },
      },
      required: ["city"],
    });
  });

  test("Gemini calls without ids pair with responses by name, in order", () => {
    const conv = toNeutral(
      "generateContent",
      {
        contents: [
          {
            role: "model",
            parts: [
              { functionCall: { name: "f", args: { n: 1 } } },
              { functionCall: { name: "f", args: { n: 2 } } },
            ],
          },
          {
            role: "user",
            parts: [
              { functionResponse: { name: "f", response: { output: "one" } } },
              { functionResponse: { name: "f", response: { n: 2 } } },
            ],
          },
        ],
      },
      { model: "g", stream: false },
    );
    expect(conv.messages.map((message) => message.parts)).toEqual([
      [
        { type: "tool_call", id: "call_0", name: "f", arguments: '{"n":1}' },
        { type: "tool_call", id: "call_1", name: "f", arguments: '{"n":2}' },
      ],
      [
        {
          type: "tool_result",
          callId: "call_0",
          name: "f",
          content: [{ type: "text", text: "one" }],
          isError: false,
        },
        {
          type: "tool_result",
          callId: "call_1",
          name: "f",
          content: [{ type: "text", text: '{"n":2}' }],
          isError: false,
        },
      ],
    ]);
  });
});
