import {
  type AnswerContext,
  startTextStub,
  type TextApi,
  type TextStub,
  type TextStubOptions,
  textPieces,
} from "./text-stub-server.ts";

/*
 * Anthropic's Messages API as documented (docs.anthropic.com/en/api/messages and
 * /en/docs/build-with-claude/streaming), written by hand: `x-api-key` and a required
 * `anthropic-version`, the message object, and the full event sequence (message_start,
 * content_block_start, ping, content_block_delta, content_block_stop, message_delta,
 * message_stop), errors as `{type: "error", error: {type, message}}`.
 */

/** Usage in Anthropic's terms: input_tokens excludes cache reads and cache writes. */
export interface AnthropicStubUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

type Context = AnswerContext<AnthropicStubUsage>;
type Json = Record<string, unknown>;

const errorJson = (type: string, message: string): Json => ({
  type: "error",
  error: { type, message },
  request_id: "req_stub",
});
const error = (status: number, type: string, message: string) =>
  Response.json(errorJson(type, message), { status });

const usageJson = (usage: AnthropicStubUsage, outputTokens = usage.output_tokens): Json => ({
  input_tokens: usage.input_tokens,
  cache_creation_input_tokens: usage.cache_creation_input_tokens,
  cache_read_input_tokens: usage.cache_read_input_tokens,
  output_tokens: outputTokens,
  service_tier: "standard",
});

function toolInput(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    return {};
  }
}

function messageJson(context: Context): Json {
  const { answer } = context;
  const content: Json[] = [];
  if (answer.text !== "") content.push({ type: "text", text: answer.text });
  if (answer.toolCall)
    content.push({
      type: "tool_use",
      id: answer.toolCall.id,
      name: answer.toolCall.name,
      input: toolInput(answer.toolCall.arguments),
    });
  return {
    id: `msg_${context.id}`,
    type: "message",
    role: "assistant",
    model: context.model,
    content,
    stop_reason: answer.toolCall ? "tool_use" : "end_turn",
    stop_sequence: null,
    ...(context.usage ? { usage: usageJson(context.usage) } : {}),
  };
}

function messageFrames(context: Context): string[] {
  const { answer, usage } = context;
  const frames: string[] = [];
  const emit = (type: string, payload: Json = {}) =>
    frames.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`);
  emit("message_start", {
    message: {
      id: `msg_${context.id}`,
      type: "message",
      role: "assistant",
      model: context.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      ...(usage ? { usage: usageJson(usage, 1) } : {}),
    },
  });
  let index = 0;
  if (answer.text !== "") {
    emit("content_block_start", { index, content_block: { type: "text", text: "" } });
    emit("ping");
    for (const text of textPieces(answer.text))
      emit("content_block_delta", { index, delta: { type: "text_delta", text } });
    emit("content_block_stop", { index });
    index++;
  }
  const call = answer.toolCall;
  if (call) {
    const block = { type: "tool_use", id: call.id, name: call.name, input: {} };
    emit("content_block_start", { index, content_block: block });
    const half = call.arguments.length >> 1;
    for (const partial_json of ["", call.arguments.slice(0, half), call.arguments.slice(half)])
      emit("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } });
    emit("content_block_stop", { index });
  }
  emit("message_delta", {
    delta: { stop_reason: call ? "tool_use" : "end_turn", stop_sequence: null },
    ...(usage ? { usage: { output_tokens: usage.output_tokens } } : {}),
  });
  emit("message_stop");
  return frames;
}

function errorBody(status: number): Json {
  if (status === 429)
    return errorJson(
      "rate_limit_error",
      "This request would exceed the rate limit for your organization.",
    );
  if (status === 529) return errorJson("overloaded_error", "Overloaded");
  if (status >= 500) return errorJson("api_error", "Internal server error");
  return errorJson("invalid_request_error", `scripted ${status}`);
}

const anthropicApi: TextApi<AnthropicStubUsage> = {
  defaultUsage: {
    input_tokens: 20,
    output_tokens: 5,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  },
  idPrefix: "01Stub",
  route: (method, url) =>
    method === "POST" && url.pathname === "/v1/messages" ? { endpoint: "messages" } : null,
  authorized: (headers, _url, key) => headers.get("x-api-key") === key,
  unauthorized: () => error(401, "authentication_error", "invalid x-api-key"),
  notFound: (_method, _path, model) =>
    model === undefined
      ? error(404, "not_found_error", "Not Found")
      : error(404, "not_found_error", `model: ${model}`),
  errorBody,
  invalid(_endpoint, json, headers) {
    if (!headers.get("anthropic-version"))
      return error(400, "invalid_request_error", "anthropic-version: header is required");
    for (const field of ["model", "max_tokens", "messages"])
      if (json[field] === undefined)
        return error(400, "invalid_request_error", `${field}: Field required`);
    return null;
  },
  modelOf: (json) => String(json.model),
  json: messageJson,
  frames: messageFrames,
};

export type AnthropicStub = TextStub<AnthropicStubUsage>;

/**
 * A local Anthropic Messages API on 127.0.0.1 (random port): `POST /v1/messages`, streamed
 * and not. `url` has no version, as UPSTREAM_ANTHROPIC_BASE_URL does not.
 */
export function startAnthropicStub(
  options: TextStubOptions<AnthropicStubUsage> = {},
): AnthropicStub {
  return startTextStub(anthropicApi, options);
}
