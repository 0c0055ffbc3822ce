import type { TextFormat } from "../formats.ts";

/*
 * Upstream answers as each API sends them, for tests: one answer of text ("Hello world")
 * then a call of get_weather({"city":"Paris"}). Usage is the same answer in every format:
 * 1,500 input tokens in all, of which 1,000 cache reads and (messages only) 300 cache
 * writes; 25 output tokens.
 */

const sse = (frames: string[]) => frames.map((frame) => `${frame}\n\n`).join("");
const data = (payload: unknown) => `data: ${JSON.stringify(payload)}`;
const event = (name: string, payload: unknown) =>
  `event: ${name}\ndata: ${JSON.stringify(payload)}`;

const chatChunk = (delta: unknown, finish: string | null = null) =>
  data({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "gpt-up",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    usage: null,
  });

export const CHAT_STREAM = sse([
  chatChunk({ role: "assistant", content: "" }),
  chatChunk({ content: "Hello" }),
  chatChunk({ content: " world" }),
  chatChunk({
    tool_calls: [
      {
        index: 0,
        id: "call_1",
        type: "function",
        function: { name: "get_weather", arguments: "" },
      },
    ],
  }),
  chatChunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
  chatChunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
  chatChunk({}, "tool_calls"),
  data({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "gpt-up",
    choices: [],
    usage: {
      prompt_tokens: 1500,
      completion_tokens: 25,
      total_tokens: 1525,
      prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 300 },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
  }),
  "data: [DONE]",
]);

export const CHAT_RESULT = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "gpt-up",
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: "Hello world",
        refusal: null,
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
    completion_tokens_details: { reasoning_tokens: 0 },
  },
};

export const MESSAGES_STREAM = sse([
  event("message_start", {
    type: "message_start",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-up",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 200,
        cache_creation_input_tokens: 300,
        cache_read_input_tokens: 1000,
        output_tokens: 1,
      },
    },
  }),
  event("content_block_start", {
    type: "content_block_start",
    index: 0,
    content_block: { type: "text", text: "" },
  }),
  event("ping", { type: "ping" }),
  event("content_block_delta", {
    type: "content_block_delta",
    index: 0,
    delta: { type: "text_delta", text: "Hello" },
  }),
  event("content_block_delta", {
    type: "content_block_delta",
    index: 0,
    delta: { type: "text_delta", text: " world" },
  }),
  event("content_block_stop", { type: "content_block_stop", index: 0 }),
  event("content_block_start", {
    type: "content_block_start",
    index: 1,
    content_block: { type: "tool_use", id: "call_1", name: "get_weather", input: {} },
  }),
  event("content_block_delta", {
    type: "content_block_delta",
    index: 1,
    delta: { type: "input_json_delta", partial_json: '{"city":' },
  }),
  event("content_block_delta", {
    type: "content_block_delta",
    index: 1,
    delta: { type: "input_json_delta", partial_json: '"Paris"}' },
  }),
  event("content_block_stop", { type: "content_block_stop", index: 1 }),
  event("message_delta", {
    type: "message_delta",
    delta: { stop_reason: "tool_use", stop_sequence: null },
    usage: { output_tokens: 25 },
  }),
  event("message_stop", { type: "message_stop" }),
]);

export const MESSAGES_RESULT = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-up",
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
};

const RESPONSE_USAGE = {
  input_tokens: 1500,
  input_tokens_details: { cached_tokens: 1000, cache_write_tokens: 300 },
  output_tokens: 25,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 1525,
};
const messageDone = {
  id: "msg_a",
  type: "message",
  status: "completed",
  role: "assistant",
  content: [{ type: "output_text", text: "Hello world", annotations: [], logprobs: [] }],
};
const callDone = {
  id: "fc_a",
  type: "function_call",
  status: "completed",
  call_id: "call_1",
  name: "get_weather",
  arguments: '{"city":"Paris"}',
};
const response = (status: string, output: unknown[], usage: unknown) => ({
  id: "resp_1",
  object: "response",
  created_at: 1_700_000_000,
  status,
  model: "gpt-up",
  output,
  usage,
});

export const RESPONSES_RESULT = response("completed", [messageDone, callDone], RESPONSE_USAGE);

let sequence = 0;
const r = (type: string, payload: Record<string, unknown>) =>
  event(type, { type, sequence_number: sequence++, ...payload });
const at = { item_id: "msg_a", output_index: 0, content_index: 0 };

export const RESPONSES_STREAM = sse([
  r("response.created", { response: response("in_progress", [], null) }),
  r("response.in_progress", { response: response("in_progress", [], null) }),
  r("response.output_item.added", {
    output_index: 0,
    item: { ...messageDone, status: "in_progress", content: [] },
  }),
  r("response.content_part.added", {
    ...at,
    part: { type: "output_text", text: "", annotations: [] },
  }),
  r("response.output_text.delta", { ...at, delta: "Hello", logprobs: [] }),
  r("response.output_text.delta", { ...at, delta: " world", logprobs: [] }),
  r("response.output_text.done", { ...at, text: "Hello world", logprobs: [] }),
  r("response.content_part.done", { ...at, part: messageDone.content[0] }),
  r("response.output_item.done", { output_index: 0, item: messageDone }),
  r("response.output_item.added", {
    output_index: 1,
    item: { ...callDone, status: "in_progress", arguments: "" },
  }),
  r("response.function_call_arguments.delta", {
    item_id: "fc_a",
    output_index: 1,
    delta: '{"city":',
  }),
  r("response.function_call_arguments.delta", {
    item_id: "fc_a",
    output_index: 1,
    delta: '"Paris"}',
  }),
  r("response.function_call_arguments.done", {
    item_id: "fc_a",
    output_index: 1,
    arguments: '{"city":"Paris"}',
  }),
  r("response.output_item.done", { output_index: 1, item: callDone }),
  r("response.completed", {
    response: response("completed", [messageDone, callDone], RESPONSE_USAGE),
  }),
]);

const GEMINI_USAGE = {
  promptTokenCount: 1500,
  candidatesTokenCount: 25,
  totalTokenCount: 1525,
  cachedContentTokenCount: 1000,
};
const geminiChunk = (parts: unknown[], extra: Record<string, unknown> = {}, usage: unknown) =>
  data({
    candidates: [{ content: { parts, role: "model" }, index: 0, ...extra }],
    usageMetadata: usage,
    modelVersion: "gemini-up",
    responseId: "resp-g1",
  });

export const GENERATE_CONTENT_STREAM = sse([
  geminiChunk([{ text: "Hello" }], {}, { promptTokenCount: 1500, totalTokenCount: 1500 }),
  geminiChunk([{ text: " world" }], {}, { promptTokenCount: 1500, totalTokenCount: 1500 }),
  geminiChunk(
    [{ functionCall: { name: "get_weather", args: { city: "Paris" } } }],
    { finishReason: "STOP" },
    GEMINI_USAGE,
  ),
]);

export const GENERATE_CONTENT_RESULT = {
  candidates: [
    {
      content: {
        parts: [
          { text: "Hello world" },
          { functionCall: { name: "get_weather", args: { city: "Paris" } } },
        ],
        role: "model",
      },
      finishReason: "STOP",
      index: 0,
    },
  ],
  usageMetadata: GEMINI_USAGE,
  modelVersion: "gemini-up",
  responseId: "resp-g1",
};

export const UPSTREAM_STREAMS: Record<TextFormat, string> = {
  chat: CHAT_STREAM,
  responses: RESPONSES_STREAM,
  messages: MESSAGES_STREAM,
  generateContent: GENERATE_CONTENT_STREAM,
};

export const UPSTREAM_RESULTS: Record<TextFormat, unknown> = {
  chat: CHAT_RESULT,
  responses: RESPONSES_RESULT,
  messages: MESSAGES_RESULT,
  generateContent: GENERATE_CONTENT_RESULT,
};
