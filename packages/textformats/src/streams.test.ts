// Proves each upstream SSE stream parses into the same neutral events, each client writer
// emits its API's exact event sequence with usage in the final events and the 4.11
// comment in its place (never in generateContent), and that parse → write → parse keeps
// the text, tool calls, finish and usage for every pair of formats.
import { describe, expect, test } from "bun:test";
import { TEXT_FORMATS, type TextFormat } from "./formats.ts";
import type { StreamEvent, Usage } from "./neutral.ts";
import { createSseDecoder } from "./sse/decoder.ts";
import { createStreamParser, createStreamWriter } from "./streams.ts";
import { UPSTREAM_STREAMS } from "./testing/fixtures.ts";
import { fullInputTokens } from "./usage.ts";

const parseAll = (format: TextFormat, text: string, chunkChars = text.length) => {
  const parser = createStreamParser(format);
  const events: StreamEvent[] = [];
  for (let at = 0; at < text.length; at += chunkChars)
    events.push(...parser.push(text.slice(at, at + chunkChars)));
  return [...events, ...parser.end()];
};

const writeAll = (
  format: TextFormat,
  events: StreamEvent[],
  overhead?: number,
  includeUsage = true,
) => {
  const writer = createStreamWriter(format, {
    model: "client-model",
    id: "ans_1",
    created: 1,
    includeUsage,
  });
  return events.map((event) => writer.write(event)).join("") + writer.end(overhead);
};

const frames = (text: string) => {
  const decoder = createSseDecoder();
  return [...decoder.push(text), ...decoder.end()];
};

const USAGE: Usage = {
  inputTokens: 200,
  outputTokens: 25,
  cacheReadTokens: 1000,
  cacheWriteTokens: 300,
};
const CALL = [
  { type: "tool_call_start", index: 0, id: "call_1", name: "get_weather" },
  { type: "tool_call_delta", index: 0, arguments: '{"city":' },
  { type: "tool_call_delta", index: 0, arguments: '"Paris"}' },
] as const;
const FINISH = { type: "finish", finish: { reason: "tool_calls" } } as const;

describe("createStreamParser", () => {
  const expected: Record<TextFormat, StreamEvent[]> = {
    chat: [
      { type: "start", id: "chatcmpl-1", model: "gpt-up" },
      { type: "text", text: "Hello" },
      { type: "text", text: " world" },
      ...CALL,
      FINISH,
      { type: "usage", usage: USAGE },
    ],
    responses: [
      { type: "start", id: "resp_1", model: "gpt-up" },
      { type: "text", text: "Hello" },
      { type: "text", text: " world" },
      ...CALL,
      FINISH,
      { type: "usage", usage: USAGE },
    ],
    messages: [
      { type: "start", id: "msg_1", model: "claude-up" },
      { type: "usage", usage: { ...USAGE, outputTokens: 1 } },
      { type: "text", text: "Hello" },
      { type: "text", text: " world" },
      ...CALL,
      FINISH,
      { type: "usage", usage: USAGE },
    ],
    generateContent: [
      { type: "start", id: "resp-g1", model: "gemini-up" },
      { type: "text", text: "Hello" },
      {
        type: "usage",
        usage: { inputTokens: 1500, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
      { type: "text", text: " world" },
      {
        type: "usage",
        usage: { inputTokens: 1500, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
      { type: "tool_call_start", index: 0, id: "call_0", name: "get_weather" },
      { type: "tool_call_delta", index: 0, arguments: '{"city":"Paris"}' },
      FINISH,
      {
        type: "usage",
        usage: { inputTokens: 500, outputTokens: 25, cacheReadTokens: 1000, cacheWriteTokens: 0 },
      },
    ],
  };

  test.each(TEXT_FORMATS)("%s: the exact neutral events, whatever the chunk borders", (format) => {
    expect(parseAll(format, UPSTREAM_STREAMS[format])).toEqual(expected[format]);
    expect(parseAll(format, UPSTREAM_STREAMS[format], 7)).toEqual(expected[format]);
  });

  test("a stream cut before its finish ends with an error event", () => {
    const cut = UPSTREAM_STREAMS.messages.split("event: message_delta")[0] ?? "";
    expect(parseAll("messages", cut).at(-1)).toEqual({
      type: "error",
      message: "the upstream stream ended before the answer finished",
    });
  });

  test("upstream error events", () => {
    const anthropic =
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    expect(parseAll("messages", anthropic)).toEqual([{ type: "error", message: "Overloaded" }]);
    const openai = 'data: {"error":{"message":"boom","type":"server_error"}}\n\n';
    expect(parseAll("chat", openai)).toEqual([{ type: "error", message: "boom" }]);
  });
});

const EVENTS: StreamEvent[] = [
  { type: "start", id: "up_1", model: "upstream-model" },
  { type: "text", text: "Hello" },
  { type: "text", text: " world" },
  ...CALL,
  FINISH,
  { type: "usage", usage: USAGE },
];

describe("createStreamWriter: chat", () => {
  const chunk = (delta: unknown, finish: string | null = null) => ({
    id: "ans_1",
    object: "chat.completion.chunk",
    created: 1,
    model: "client-model",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    usage: null,
  });

  test("chunks, finish, usage chunk, the comment, then [DONE]", () => {
    const out = frames(writeAll("chat", EVENTS, 321));
    expect(
      out.map((frame) => (frame.data.startsWith("{") ? JSON.parse(frame.data) : frame.raw)),
    ).toEqual([
      chunk({ role: "assistant", content: "", refusal: null }),
      chunk({ content: "Hello" }),
      chunk({ content: " world" }),
      chunk({
        tool_calls: [
          {
            index: 0,
            id: "call_1",
            type: "function",
            function: { name: "get_weather", arguments: "" },
          },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      chunk({}, "tool_calls"),
      {
        id: "ans_1",
        object: "chat.completion.chunk",
        created: 1,
        model: "client-model",
        choices: [],
        usage: {
          prompt_tokens: 1500,
          completion_tokens: 25,
          total_tokens: 1525,
          prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 300 },
          completion_tokens_details: { reasoning_tokens: 0 },
        },
      },
      ": x-service-provider-prompt-tokens=321",
      "data: [DONE]",
    ]);
  });

  test("without include_usage: no usage chunk and no usage fields, as OpenAI", () => {
    const text = writeAll("chat", EVENTS, undefined, false);
    expect(text).not.toContain("usage");
    expect(text).not.toContain("x-service-provider-prompt-tokens");
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
  });
});

describe("createStreamWriter: responses", () => {
  test("the Responses event sequence, numbered, the comment before response.completed", () => {
    const out = frames(writeAll("responses", EVENTS, 321));
    expect(out.map((frame) => frame.event ?? frame.raw)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      ": x-service-provider-prompt-tokens=321",
      "response.completed",
    ]);
    const payloads = out.filter((frame) => frame.event).map((frame) => JSON.parse(frame.data));
    expect(payloads.map((payload) => payload.sequence_number)).toEqual([...payloads.keys()]);
    const completed = payloads.at(-1);
    expect(completed.response).toMatchObject({
      id: "ans_1",
      status: "completed",
      model: "client-model",
      usage: {
        input_tokens: 1500,
        output_tokens: 25,
        input_tokens_details: { cached_tokens: 1000 },
      },
    });
    expect(completed.response.output.map((item: { id: string }) => item.id)).toEqual([
      "msg_ans1_0",
      "fc_ans1_1",
    ]);
  });

  test("a cut answer ends in response.incomplete, the comment before it", () => {
    const events: StreamEvent[] = [
      { type: "text", text: "Hi" },
      { type: "finish", finish: { reason: "length" } },
    ];
    const out = frames(writeAll("responses", events, 250));
    expect(out.slice(-2).map((frame) => frame.event ?? frame.raw)).toEqual([
      ": x-service-provider-prompt-tokens=250",
      "response.incomplete",
    ]);
  });
});

describe("createStreamWriter: messages", () => {
  test("message_start … message_delta with usage, the comment, message_stop", () => {
    const out = frames(writeAll("messages", EVENTS, 321));
    expect(out.map((frame) => frame.event ?? frame.raw)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      ": x-service-provider-prompt-tokens=321",
      "message_stop",
    ]);
    const payloads = out.filter((frame) => frame.event).map((frame) => JSON.parse(frame.data));
    expect(payloads[0].message).toMatchObject({
      id: "ans_1",
      model: "client-model",
      role: "assistant",
    });
    expect(payloads[5]).toEqual({
      type: "content_block_start",
      index: 1,
      content_block: { type: "tool_use", id: "call_1", name: "get_weather", input: {} },
    });
    expect(payloads[9]).toEqual({
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: {
        input_tokens: 200,
        cache_creation_input_tokens: 300,
        cache_read_input_tokens: 1000,
        output_tokens: 25,
      },
    });
  });

  test("usage known at the start is in message_start", () => {
    const events: StreamEvent[] = [
      { type: "start", id: "m", model: "c" },
      { type: "usage", usage: { ...USAGE, outputTokens: 1 } },
      { type: "text", text: "Hi" },
    ];
    const first = frames(writeAll("messages", events))[0];
    expect(JSON.parse(first?.data ?? "{}").message.usage).toEqual({
      input_tokens: 200,
      cache_creation_input_tokens: 300,
      cache_read_input_tokens: 1000,
      output_tokens: 0,
    });
  });
});

describe("createStreamWriter: generateContent", () => {
  test("data chunks, calls whole, usageMetadata last, never the comment", () => {
    const text = writeAll("generateContent", EVENTS, 321);
    expect(text).not.toContain("x-service-provider-prompt-tokens");
    const chunk = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
      candidates: [
        {
          content: { role: "model", parts },
          index: 0,
          ...(extra.finishReason ? { finishReason: extra.finishReason } : {}),
        },
      ],
      ...(extra.usageMetadata ? { usageMetadata: extra.usageMetadata } : {}),
      modelVersion: "client-model",
      responseId: "ans_1",
    });
    expect(frames(text).map((frame) => JSON.parse(frame.data))).toEqual([
      chunk([{ text: "Hello" }]),
      chunk([{ text: " world" }]),
      chunk([{ functionCall: { name: "get_weather", args: { city: "Paris" } } }], {
        finishReason: "STOP",
        usageMetadata: {
          promptTokenCount: 1500,
          candidatesTokenCount: 25,
          totalTokenCount: 1525,
          cachedContentTokenCount: 1000,
        },
      }),
    ]);
  });
});

describe("errors mid-stream", () => {
  const error: StreamEvent = { type: "error", message: "upstream broke" };
  test.each([
    [
      "chat",
      'data: {"error":{"message":"upstream broke","type":"server_error","code":"upstream_error"}}\n\n',
    ],
    [
      "messages",
      'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"upstream broke"}}\n\n',
    ],
    [
      "generateContent",
      'data: {"error":{"code":500,"message":"upstream broke","status":"INTERNAL"}}\n\n',
    ],
  ] as const)("%s ends with its API's error event and nothing after", (format, expected) => {
    const writer = createStreamWriter(format, {});
    expect(writer.write(error)).toBe(expected);
    expect(writer.write({ type: "text", text: "late" })).toBe("");
    expect(writer.end(500)).toBe("");
  });

  test("responses sends an error event after response.created", () => {
    const writer = createStreamWriter("responses", { id: "r", model: "m", created: 1 });
    const out = frames(writer.write(error));
    expect(out.map((frame) => frame.event)).toEqual([
      "response.created",
      "response.in_progress",
      "error",
    ]);
    expect(JSON.parse(out[2]?.data ?? "{}")).toEqual({
      type: "error",
      sequence_number: 2,
      code: "upstream_error",
      message: "upstream broke",
      param: null,
    });
  });
});

/** What a stream says, whatever its format: text, calls, finish and the last usage. */
function summary(events: StreamEvent[]) {
  let text = "";
  const calls: { id: string; name: string; arguments: string }[] = [];
  let finish: unknown;
  let usage: Usage | undefined;
  for (const event of events) {
    if (event.type === "text") text += event.text;
    else if (event.type === "tool_call_start")
      calls[event.index] = { id: event.id, name: event.name, arguments: "" };
    else if (event.type === "tool_call_delta") {
      const call = calls[event.index];
      if (call) call.arguments += event.arguments;
    } else if (event.type === "finish") finish = event.finish;
    else if (event.type === "usage") usage = event.usage;
  }
  return {
    text,
    calls: calls.map(({ name, arguments: args }) => ({ name, args: JSON.parse(args) })),
    finish,
    full: usage && fullInputTokens(usage),
    output: usage?.outputTokens,
  };
}

describe("parse → write → parse", () => {
  test.each(TEXT_FORMATS.flatMap((from) => TEXT_FORMATS.map((to) => [from, to] as const)))(
    "a %s upstream for a %s client",
    (from, to) => {
      const upstream = parseAll(from, UPSTREAM_STREAMS[from]);
      const written = writeAll(to, upstream, 300);
      const again = parseAll(to, written);
      expect(summary(again)).toEqual(summary(upstream));
      expect(summary(again)).toMatchObject({
        text: "Hello world",
        calls: [{ name: "get_weather", args: { city: "Paris" } }],
        finish: { reason: "tool_calls" },
        full: 1500,
        output: 25,
      });
    },
  );
});
