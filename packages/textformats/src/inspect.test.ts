// Proves the helpers the endpoints need: media detection (spec 4.11), the requested output
// cap of each format, and a local-count body that gives exactly what count_tokens gives
// for the same content, whichever format the request came in.
import { describe, expect, test } from "bun:test";
// The count_tokens counter itself, so the equality is checked against the real thing.
import { countRequestTokens, loadProfile } from "@gw/tokens";
import type { TextFormat } from "./formats.ts";
import { countableRequest, hasMedia, outputCap } from "./inspect.ts";
import type { Json } from "./read.ts";
import { toNeutral } from "./requests.ts";
import { MESSAGES_REQUEST, PATH, REQUESTS } from "./testing/requests.ts";

const read = (format: TextFormat, body: Json) => toNeutral(format, body, PATH);

describe("hasMedia", () => {
  test.each([
    ["chat", { model: "m", messages: [{ role: "user", content: "Hi" }] }, false],
    ["chat", REQUESTS.chat, true],
    [
      "chat",
      {
        model: "m",
        messages: [
          {
            role: "user",
            content: [{ type: "input_audio", input_audio: { data: "A", format: "wav" } }],
          },
        ],
      },
      true,
    ],
    [
      "chat",
      {
        model: "m",
        messages: [{ role: "user", content: [{ type: "file", file: { file_id: "f" } }] }],
      },
      true,
    ],
    [
      "responses",
      { model: "m", input: [{ role: "user", content: [{ type: "input_file", file_id: "f" }] }] },
      true,
    ],
    ["responses", { model: "m", input: "Hi", instructions: "Be brief." }, false],
    [
      "messages",
      {
        model: "m",
        max_tokens: 1,
        messages: [
          {
            role: "user",
            content: [
              { type: "document", source: { type: "text", media_type: "text/plain", data: "x" } },
            ],
          },
        ],
      },
      true,
    ],
    [
      "messages",
      {
        model: "m",
        max_tokens: 1,
        messages: [
          {
            role: "user",
            content: [
              {
                type: "tool_result",
                tool_use_id: "t",
                content: [{ type: "image", source: { type: "url", url: "https://x/a.png" } }],
              },
            ],
          },
        ],
      },
      true,
    ],
    [
      "messages",
      {
        model: "m",
        max_tokens: 1,
        messages: [
          { role: "assistant", content: [{ type: "thinking", thinking: "hmm", signature: "s" }] },
        ],
      },
      false,
    ],
    [
      "generateContent",
      {
        contents: [{ parts: [{ fileData: { fileUri: "files/1", mimeType: "application/pdf" } }] }],
      },
      true,
    ],
    ["generateContent", { contents: [{ parts: [{ text: "Hi" }] }] }, false],
  ] as const)("%s %#", (format, body, expected) => {
    expect(hasMedia(read(format, body as Json))).toBe(expected);
  });
});

describe("outputCap", () => {
  test("each format's own field", () => {
    expect(outputCap(read("chat", REQUESTS.chat))).toBe(256);
    expect(outputCap(read("chat", { model: "m", messages: [], max_tokens: 77 }))).toBe(77);
    expect(outputCap(read("responses", REQUESTS.responses))).toBe(256);
    expect(outputCap(read("messages", REQUESTS.messages))).toBe(256);
    expect(outputCap(read("generateContent", REQUESTS.generateContent))).toBe(256);
    expect(outputCap(read("chat", { model: "m", messages: [] }))).toBeUndefined();
  });
});

describe("countableRequest", () => {
  test("a messages request counts exactly as count_tokens counts it", async () => {
    for (const id of ["anthropic/claude-sonnet-4.5", "openai/gpt-4o-mini"]) {
      const profile = await loadProfile(id);
      const bodies: Json[] = [
        MESSAGES_REQUEST,
        { model: "m", max_tokens: 5, messages: [{ role: "user", content: "Hello there" }] },
        {
          model: "m",
          max_tokens: 5,
          system: [
            { type: "text", text: "One." },
            { type: "text", text: "Two." },
          ],
          messages: [
            {
              role: "user",
              content: [
                { type: "text", text: "a" },
                { type: "text", text: "b" },
              ],
            },
            { role: "assistant", content: "c" },
            { role: "user", content: "d" },
          ],
        },
      ];
      for (const body of bodies) {
        const local = countRequestTokens(profile, countableRequest(read("messages", body)));
        expect(local).toBe(countRequestTokens(profile, body as never));
        expect(local).toBeGreaterThan(0);
      }
    }
  });

  test("the same conversation counts the same in every format", async () => {
    const profile = await loadProfile("anthropic/claude-sonnet-4.5");
    const schema = { type: "object", properties: { city: { type: "string" } } };
    const bodies: Record<TextFormat, Json> = {
      chat: {
        model: "m",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "What is the capital of France?" },
          { role: "assistant", content: "Paris." },
          { role: "user", content: "And of Italy?" },
        ],
        tools: [
          {
            type: "function",
            function: { name: "lookup", description: "Look up", parameters: schema },
          },
        ],
      },
      responses: {
        model: "m",
        instructions: "Be brief.",
        input: [
          { role: "user", content: "What is the capital of France?" },
          { role: "assistant", content: "Paris." },
          { role: "user", content: "And of Italy?" },
        ],
        tools: [
          {
            type: "function",
            name: "lookup",
            description: "Look up",
            parameters: schema,
            strict: false,
          },
        ],
      },
      messages: {
        model: "m",
        max_tokens: 10,
        system: "Be brief.",
        messages: [
          { role: "user", content: "What is the capital of France?" },
          { role: "assistant", content: "Paris." },
          { role: "user", content: "And of Italy?" },
        ],
        tools: [{ name: "lookup", description: "Look up", input_schema: schema }],
      },
      generateContent: {
        systemInstruction: { parts: [{ text: "Be brief." }] },
        contents: [
          { role: "user", parts: [{ text: "What is the capital of France?" }] },
          { role: "model", parts: [{ text: "Paris." }] },
          { role: "user", parts: [{ text: "And of Italy?" }] },
        ],
        tools: [
          {
            functionDeclarations: [
              { name: "lookup", description: "Look up", parametersJsonSchema: schema },
            ],
          },
        ],
      },
    };
    const expected = countRequestTokens(profile, bodies.messages as never);
    for (const [format, body] of Object.entries(bodies))
      expect([
        format,
        countRequestTokens(profile, countableRequest(read(format as TextFormat, body))),
      ]).toEqual([format, expected]);
  });

  test("tool calls, tool results and images keep their count_tokens form", () => {
    expect(countableRequest(read("chat", REQUESTS.chat))).toEqual({
      model: "m",
      system: "Be brief.",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Weather where this photo was taken?" },
            {
              type: "image",
              source: { type: "base64", media_type: "image/png", data: expect.any(String) },
            },
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
            {
              type: "tool_result",
              tool_use_id: "call_0",
              content: [{ type: "text", text: "18C" }],
            },
          ],
        },
        { role: "user", content: [{ type: "text", text: "And tomorrow?" }] },
      ],
      tools: [
        {
          name: "get_weather",
          description: "Weather for a city",
          input_schema: expect.objectContaining({ type: "object" }),
        },
      ],
    });
  });
});
