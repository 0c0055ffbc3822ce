// Proves upstream answers of each format read into one neutral answer with disjoint usage
// counters (each API's own cache semantics), and that neutral answers are written in each
// client format's exact shape, reporting the full input (cache reads and writes included).
import { describe, expect, test } from "bun:test";
import { TEXT_FORMATS } from "./formats.ts";
import type { TextResult, Usage } from "./neutral.ts";
import { readResult, writeResult } from "./results.ts";
import { UPSTREAM_RESULTS } from "./testing/fixtures.ts";
import { fullInputTokens, totalTokens } from "./usage.ts";

const PARTS = [
  { type: "text", text: "Hello world" },
  { type: "tool_call", id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
];

describe("readResult", () => {
  const expected: Record<string, { id: string; model: string; usage: Usage }> = {
    chat: {
      id: "chatcmpl-1",
      model: "gpt-up",
      usage: { inputTokens: 200, outputTokens: 25, cacheReadTokens: 1000, cacheWriteTokens: 300 },
    },
    responses: {
      id: "resp_1",
      model: "gpt-up",
      usage: { inputTokens: 200, outputTokens: 25, cacheReadTokens: 1000, cacheWriteTokens: 300 },
    },
    messages: {
      id: "msg_1",
      model: "claude-up",
      usage: { inputTokens: 200, outputTokens: 25, cacheReadTokens: 1000, cacheWriteTokens: 300 },
    },
    generateContent: {
      id: "resp-g1",
      model: "gemini-up",
      usage: { inputTokens: 500, outputTokens: 25, cacheReadTokens: 1000, cacheWriteTokens: 0 },
    },
  };

  test.each(TEXT_FORMATS)("%s: text, tool call, finish and usage", (format) => {
    const result = readResult(format, UPSTREAM_RESULTS[format]);
    const want = expected[format];
    if (!want) throw new Error(format);
    const parts = format === "generateContent" ? [PARTS[0], { ...PARTS[1], id: "call_0" }] : PARTS;
    expect(result).toEqual({
      ok: true,
      value: { ...want, parts, finish: { reason: "tool_calls" } } as TextResult,
    });
    if (result.ok && result.value.usage) expect(fullInputTokens(result.value.usage)).toBe(1500);
  });

  test("OpenAI: prompt_tokens includes cached_tokens", () => {
    const result = readResult("chat", {
      id: "c",
      model: "m",
      choices: [{ index: 0, message: { role: "assistant", content: "x" }, finish_reason: "stop" }],
      usage: {
        prompt_tokens: 1000,
        completion_tokens: 7,
        total_tokens: 1007,
        prompt_tokens_details: { cached_tokens: 800 },
        completion_tokens_details: { reasoning_tokens: 3 },
      },
    });
    expect(result.ok && result.value.usage).toEqual({
      inputTokens: 200,
      outputTokens: 7,
      cacheReadTokens: 800,
      cacheWriteTokens: 0,
      reasoningTokens: 3,
    });
  });

  test("Anthropic: input_tokens excludes cache reads and writes", () => {
    const result = readResult("messages", {
      id: "m",
      model: "c",
      content: [{ type: "text", text: "x" }],
      stop_reason: "end_turn",
      usage: {
        input_tokens: 10,
        cache_read_input_tokens: 500,
        cache_creation_input_tokens: 90,
        output_tokens: 4,
      },
    });
    const usage = result.ok ? result.value.usage : undefined;
    expect(usage).toEqual({
      inputTokens: 10,
      outputTokens: 4,
      cacheReadTokens: 500,
      cacheWriteTokens: 90,
    });
    if (usage) {
      expect(fullInputTokens(usage)).toBe(600);
      expect(totalTokens(usage)).toBe(604);
    }
  });

  test("Gemini: promptTokenCount includes cached tokens; thoughts and tool prompts count", () => {
    const result = readResult("generateContent", {
      candidates: [{ content: { role: "model", parts: [{ text: "x" }] }, finishReason: "STOP" }],
      usageMetadata: {
        promptTokenCount: 100,
        cachedContentTokenCount: 40,
        toolUsePromptTokenCount: 20,
        candidatesTokenCount: 30,
        thoughtsTokenCount: 50,
        totalTokenCount: 200,
      },
    });
    expect(result.ok && result.value.usage).toEqual({
      inputTokens: 80,
      outputTokens: 80,
      cacheReadTokens: 40,
      cacheWriteTokens: 0,
      reasoningTokens: 50,
    });
  });

  test("an answer without usage reads with no usage", () => {
    const result = readResult("chat", {
      id: "c",
      model: "m",
      choices: [
        { index: 0, message: { role: "assistant", content: "x" }, finish_reason: "length" },
      ],
    });
    expect(result).toEqual({
      ok: true,
      value: {
        id: "c",
        model: "m",
        parts: [{ type: "text", text: "x" }],
        finish: { reason: "length" },
      },
    });
  });

  test("finish reasons", () => {
    const messages = readResult("messages", {
      content: [],
      stop_reason: "stop_sequence",
      stop_sequence: "END",
    });
    expect(messages.ok && messages.value.finish).toEqual({ reason: "stop", stopSequence: "END" });
    const incomplete = readResult("responses", {
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      output: [],
    });
    expect(incomplete.ok && incomplete.value.finish).toEqual({ reason: "length" });
    const safety = readResult("generateContent", { candidates: [{ finishReason: "SAFETY" }] });
    expect(safety.ok && safety.value.finish).toEqual({ reason: "content_filter" });
    const blocked = readResult("generateContent", { promptFeedback: { blockReason: "SAFETY" } });
    expect(blocked.ok && blocked.value).toMatchObject({
      parts: [],
      finish: { reason: "content_filter" },
    });
  });

  test.each([
    ["chat", { choices: [] }],
    ["responses", { status: "failed", error: { message: "overloaded" } }],
    ["messages", { type: "message" }],
    ["generateContent", {}],
  ] as const)("a %s body without its answer is an upstream error", (format, body) => {
    expect(readResult(format, body)).toMatchObject({ ok: false, code: "upstream_error" });
  });
});

const RESULT: TextResult = {
  id: "up_1",
  model: "upstream-model",
  parts: PARTS as TextResult["parts"],
  finish: { reason: "tool_calls" },
  usage: {
    inputTokens: 200,
    outputTokens: 25,
    cacheReadTokens: 1000,
    cacheWriteTokens: 300,
    reasoningTokens: 5,
  },
};
const CONTEXT = { model: "client-model", id: "ans_1", created: 1_700_000_000 };

describe("writeResult", () => {
  test("chat completion", () => {
    expect(writeResult("chat", RESULT, CONTEXT)).toEqual({
      ok: true,
      value: {
        id: "ans_1",
        object: "chat.completion",
        created: 1_700_000_000,
        model: "client-model",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: "Hello world",
              refusal: null,
              annotations: [],
              tool_calls: [
                {
                  id: "call_1",
                  type: "function",
                  function: { name: "get_weather", arguments: '{"city":"Paris"}' },
                },
              ],
            },
            logprobs: null,
            finish_reason: "tool_calls",
          },
        ],
        usage: {
          prompt_tokens: 1500,
          completion_tokens: 25,
          total_tokens: 1525,
          prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 300 },
          completion_tokens_details: { reasoning_tokens: 5 },
        },
      },
    });
  });

  test("response object", () => {
    const written = writeResult("responses", RESULT, CONTEXT);
    expect(written.ok && written.value).toMatchObject({
      id: "ans_1",
      object: "response",
      created_at: 1_700_000_000,
      status: "completed",
      error: null,
      incomplete_details: null,
      model: "client-model",
      output: [
        {
          id: "msg_ans1_0",
          type: "message",
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: "Hello world", annotations: [], logprobs: [] }],
        },
        {
          id: "fc_ans1_1",
          type: "function_call",
          status: "completed",
          call_id: "call_1",
          name: "get_weather",
          arguments: '{"city":"Paris"}',
        },
      ],
      usage: {
        input_tokens: 1500,
        input_tokens_details: { cached_tokens: 1000, cache_write_tokens: 300 },
        output_tokens: 25,
        output_tokens_details: { reasoning_tokens: 5 },
        total_tokens: 1525,
      },
    });
    const cut = writeResult("responses", { ...RESULT, finish: { reason: "length" } }, CONTEXT);
    expect(cut.ok && cut.value).toMatchObject({
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
    });
  });

  test("message", () => {
    expect(writeResult("messages", RESULT, CONTEXT)).toEqual({
      ok: true,
      value: {
        id: "ans_1",
        type: "message",
        role: "assistant",
        model: "client-model",
        content: [
          { type: "text", text: "Hello world" },
          { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
        ],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage: {
          input_tokens: 200,
          cache_creation_input_tokens: 300,
          cache_read_input_tokens: 1000,
          output_tokens: 25,
        },
      },
    });
    const stopped = writeResult(
      "messages",
      { ...RESULT, parts: [], finish: { reason: "stop", stopSequence: "END" } },
      CONTEXT,
    );
    expect(stopped.ok && stopped.value).toMatchObject({
      stop_reason: "stop_sequence",
      stop_sequence: "END",
    });
  });

  test("GenerateContentResponse", () => {
    expect(writeResult("generateContent", RESULT, CONTEXT)).toEqual({
      ok: true,
      value: {
        candidates: [
          {
            content: {
              role: "model",
              parts: [
                { text: "Hello world" },
                { functionCall: { name: "get_weather", args: { city: "Paris" } } },
              ],
            },
            finishReason: "STOP",
            index: 0,
          },
        ],
        usageMetadata: {
          promptTokenCount: 1500,
          candidatesTokenCount: 20,
          totalTokenCount: 1525,
          cachedContentTokenCount: 1000,
          thoughtsTokenCount: 5,
        },
        modelVersion: "client-model",
        responseId: "ans_1",
      },
    });
  });

  test("arguments an upstream sent that are not a JSON object cannot become an object", () => {
    const bad: TextResult = {
      ...RESULT,
      parts: [{ type: "tool_call", id: "c", name: "f", arguments: "{oops" }],
    };
    expect(writeResult("messages", bad)).toMatchObject({ ok: false, code: "upstream_error" });
    expect(writeResult("generateContent", bad)).toMatchObject({
      ok: false,
      code: "upstream_error",
    });
    expect(writeResult("chat", bad).ok).toBe(true);
  });

  test.each(TEXT_FORMATS.flatMap((from) => TEXT_FORMATS.map((to) => [from, to] as const)))(
    "%s answer for a %s client reports the full input",
    (from, to) => {
      const read = readResult(from, UPSTREAM_RESULTS[from]);
      if (!read.ok) throw new Error(read.message);
      const written = writeResult(to, read.value, CONTEXT);
      if (!written.ok) throw new Error(written.message);
      const body = written.value as Record<string, Record<string, number>>;
      if (to === "chat") expect(body.usage?.prompt_tokens).toBe(1500);
      if (to === "responses") expect(body.usage?.input_tokens).toBe(1500);
      if (to === "generateContent") expect(body.usageMetadata?.promptTokenCount).toBe(1500);
      if (to === "messages") {
        const usage = body.usage ?? {};
        const full =
          (usage.input_tokens ?? 0) +
          (usage.cache_read_input_tokens ?? 0) +
          (usage.cache_creation_input_tokens ?? 0);
        expect(full).toBe(1500);
      }
    },
  );
});
