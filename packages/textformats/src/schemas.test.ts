// Proves the request schemas refuse what the gateway needs and cannot use (no model, no
// messages, a bad output cap or stream flag) and accept every other field, so same-format
// calls keep the upstream's full API.
import { describe, expect, test } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { ChatRequest } from "./chat/schema.ts";
import { GenerateContentRequest } from "./generate-content/schema.ts";
import { MessagesRequest } from "./messages/schema.ts";
import type { Json } from "./read.ts";
import { ResponsesRequest } from "./responses/schema.ts";
import { REQUESTS } from "./testing/requests.ts";

const valid = (schema: TSchema, body: unknown) => Value.Check(schema, body);
const without = (body: Json, key: string) =>
  Object.fromEntries(Object.entries(body).filter(([k]) => k !== key));

const SCHEMAS = {
  chat: ChatRequest,
  responses: ResponsesRequest,
  messages: MessagesRequest,
  generateContent: GenerateContentRequest,
} as const;

describe("request schemas", () => {
  test.each(Object.keys(SCHEMAS) as (keyof typeof SCHEMAS)[])(
    "%s accepts its full request and unknown fields",
    (format) => {
      expect(valid(SCHEMAS[format], REQUESTS[format])).toBe(true);
      expect(
        valid(SCHEMAS[format], { ...REQUESTS[format], some_new_upstream_field: { a: 1 } }),
      ).toBe(true);
    },
  );

  test("chat: model, messages, caps and stream flags", () => {
    const body = REQUESTS.chat;
    expect(valid(ChatRequest, without(body, "model"))).toBe(false);
    expect(valid(ChatRequest, { ...body, model: "" })).toBe(false);
    expect(valid(ChatRequest, { ...body, messages: [] })).toBe(false);
    expect(valid(ChatRequest, { ...body, messages: [{ role: "robot", content: "x" }] })).toBe(
      false,
    );
    expect(valid(ChatRequest, { ...body, max_tokens: 0 })).toBe(false);
    expect(valid(ChatRequest, { ...body, max_completion_tokens: 1.5 })).toBe(false);
    expect(
      valid(ChatRequest, { ...body, max_tokens: null, stream: null, stream_options: null }),
    ).toBe(true);
    expect(valid(ChatRequest, { ...body, stream: "yes" })).toBe(false);
    expect(valid(ChatRequest, { ...body, stream_options: { include_usage: "y" } })).toBe(false);
    expect(valid(ChatRequest, { ...body, stop: "END" })).toBe(true);
  });

  test("responses: model required (the gateway routes by it), input string or items", () => {
    const body = REQUESTS.responses;
    expect(valid(ResponsesRequest, without(body, "model"))).toBe(false);
    expect(valid(ResponsesRequest, without(body, "input"))).toBe(false);
    expect(valid(ResponsesRequest, { ...body, input: "Hi" })).toBe(true);
    expect(valid(ResponsesRequest, { ...body, max_output_tokens: -1 })).toBe(false);
  });

  test("messages: max_tokens required", () => {
    const body = REQUESTS.messages;
    expect(valid(MessagesRequest, without(body, "max_tokens"))).toBe(false);
    expect(valid(MessagesRequest, { ...body, max_tokens: "100" })).toBe(false);
    expect(valid(MessagesRequest, { ...body, stream: 1 })).toBe(false);
    expect(
      valid(MessagesRequest, {
        ...body,
        messages: [{ role: "user", content: [{ text: "no type" }] }],
      }),
    ).toBe(false);
  });

  test("generateContent: contents required, caps in either spelling", () => {
    const body = REQUESTS.generateContent;
    expect(valid(GenerateContentRequest, without(body, "contents"))).toBe(false);
    expect(valid(GenerateContentRequest, { ...body, contents: [] })).toBe(false);
    expect(
      valid(GenerateContentRequest, { ...body, generationConfig: { maxOutputTokens: 0 } }),
    ).toBe(false);
    expect(
      valid(GenerateContentRequest, { ...body, generation_config: { max_output_tokens: 0 } }),
    ).toBe(false);
    expect(valid(GenerateContentRequest, { contents: [{ parts: [{ text: "Hi" }] }] })).toBe(true);
  });
});
