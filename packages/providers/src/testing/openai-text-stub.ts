import {
  type AnswerContext,
  startTextStub,
  type TextApi,
  type TextStub,
  type TextStubOptions,
  textPieces,
} from "./text-stub-server.ts";

/*
 * OpenAI's chat completions and responses APIs as documented (platform.openai.com/docs/
 * api-reference), written by hand: the JSON objects, the chunk stream ending in
 * `data: [DONE]` with the usage chunk (`choices: []`) when stream_options.include_usage is
 * set, and the responses event sequence with sequence numbers.
 */

/** Usage in OpenAI's terms: prompt_tokens includes the cached tokens it details. */
export interface OpenAIStubUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
}

type Context = AnswerContext<OpenAIStubUsage>;
type Json = Record<string, unknown>;

const error = (
  status: number,
  message: string,
  type: string,
  code: string | null,
  param: string | null = null,
) => Response.json({ error: { message, type, param, code } }, { status });

const mask = (key: string) =>
  key.length > 8 ? `${key.slice(0, 3)}*****${key.slice(-4)}` : "*****";

function chatUsage(usage: OpenAIStubUsage): Json {
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    prompt_tokens_details: { cached_tokens: usage.cached_tokens, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: usage.reasoning_tokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function responsesUsage(usage: OpenAIStubUsage): Json {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: usage.cached_tokens },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.reasoning_tokens },
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
  };
}

function chatJson(context: Context): Json {
  const { answer } = context;
  const message: Json = {
    role: "assistant",
    content: answer.text === "" && answer.toolCall ? null : answer.text,
    refusal: null,
    annotations: [],
  };
  if (answer.toolCall)
    message.tool_calls = [
      {
        id: answer.toolCall.id,
        type: "function",
        function: { name: answer.toolCall.name, arguments: answer.toolCall.arguments },
      },
    ];
  return {
    id: `chatcmpl-${context.id}`,
    object: "chat.completion",
    created: context.created,
    model: context.model,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: answer.toolCall ? "tool_calls" : "stop",
      },
    ],
    ...(context.usage ? { usage: chatUsage(context.usage) } : {}),
    service_tier: "default",
    system_fingerprint: "fp_stub",
  };
}

const halves = (text: string): string[] =>
  text.length < 2 ? [text] : [text.slice(0, text.length >> 1), text.slice(text.length >> 1)];

function chatFrames(context: Context): string[] {
  const { answer } = context;
  const options = context.request.stream_options as Json | undefined;
  const includeUsage = options?.include_usage === true;
  const chunk = (delta: Json, finish: string | null = null, extra: Json = {}) =>
    `data: ${JSON.stringify({
      id: `chatcmpl-${context.id}`,
      object: "chat.completion.chunk",
      created: context.created,
      model: context.model,
      service_tier: "default",
      system_fingerprint: "fp_stub",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(includeUsage ? { usage: null } : {}),
      ...extra,
    })}\n\n`;
  const frames = [chunk({ role: "assistant", content: "", refusal: null })];
  for (const piece of textPieces(answer.text)) frames.push(chunk({ content: piece }));
  const call = answer.toolCall;
  if (call) {
    const fn = { name: call.name, arguments: "" };
    frames.push(chunk({ tool_calls: [{ index: 0, id: call.id, type: "function", function: fn }] }));
    for (const piece of halves(call.arguments))
      frames.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
  }
  frames.push(chunk({}, call ? "tool_calls" : "stop"));
  if (includeUsage && context.usage)
    frames.push(
      `data: ${JSON.stringify({
        id: `chatcmpl-${context.id}`,
        object: "chat.completion.chunk",
        created: context.created,
        model: context.model,
        service_tier: "default",
        system_fingerprint: "fp_stub",
        choices: [],
        usage: chatUsage(context.usage),
      })}\n\n`,
    );
  frames.push("data: [DONE]\n\n");
  return frames;
}

/** The response object; request settings echoed as the API does. */
function responseObject(
  context: Context,
  status: string,
  output: Json[],
  usage: Json | null,
): Json {
  const request = context.request;
  return {
    id: `resp_${context.id}`,
    object: "response",
    created_at: context.created,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model: context.model,
    output,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    service_tier: "default",
    store: request.store ?? true,
    temperature: request.temperature ?? 1,
    text: request.text ?? { format: { type: "text" } },
    tool_choice: request.tool_choice ?? "auto",
    tools: request.tools ?? [],
    top_p: request.top_p ?? 1,
    truncation: "disabled",
    usage,
    user: null,
    metadata: request.metadata ?? {},
  };
}

const textPart = (text: string): Json => ({
  type: "output_text",
  annotations: [],
  logprobs: [],
  text,
});

function outputItems(context: Context): Json[] {
  const { answer } = context;
  const items: Json[] = [];
  if (answer.text !== "")
    items.push({
      id: `msg_${context.id}`,
      type: "message",
      status: "completed",
      content: [textPart(answer.text)],
      role: "assistant",
    });
  if (answer.toolCall)
    items.push({
      id: `fc_${context.id}`,
      type: "function_call",
      status: "completed",
      arguments: answer.toolCall.arguments,
      call_id: answer.toolCall.id,
      name: answer.toolCall.name,
    });
  return items;
}

const responsesJson = (context: Context): Json =>
  responseObject(
    context,
    "completed",
    outputItems(context),
    context.usage ? responsesUsage(context.usage) : null,
  );

function responsesFrames(context: Context): string[] {
  let sequence = 0;
  const frames: string[] = [];
  const emit = (type: string, payload: Json) =>
    frames.push(
      `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...payload })}\n\n`,
    );
  const initial = responseObject(context, "in_progress", [], null);
  emit("response.created", { response: initial });
  emit("response.in_progress", { response: initial });
  for (const [output_index, item] of outputItems(context).entries()) {
    const item_id = item.id;
    if (item.type === "message") {
      const text = context.answer.text;
      emit("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", content: [] },
      });
      const part = { item_id, output_index, content_index: 0 };
      emit("response.content_part.added", { ...part, part: textPart("") });
      for (const delta of textPieces(text))
        emit("response.output_text.delta", { ...part, delta, logprobs: [] });
      emit("response.output_text.done", { ...part, text, logprobs: [] });
      emit("response.content_part.done", { ...part, part: textPart(text) });
    } else {
      const args = String(item.arguments);
      emit("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", arguments: "" },
      });
      for (const delta of halves(args))
        emit("response.function_call_arguments.delta", { item_id, output_index, delta });
      emit("response.function_call_arguments.done", { item_id, output_index, arguments: args });
    }
    emit("response.output_item.done", { output_index, item });
  }
  emit("response.completed", { response: responsesJson(context) });
  return frames;
}

function errorBody(status: number): Json {
  const [message, type, code] =
    status === 429
      ? [
          "Rate limit reached for requests. Please try again in 1s.",
          "requests",
          "rate_limit_exceeded",
        ]
      : status === 503
        ? ["The server is overloaded or not ready yet.", "server_error", null]
        : status >= 500
          ? [
              "The server had an error while processing your request. Sorry about that!",
              "server_error",
              null,
            ]
          : [`scripted ${status}`, "invalid_request_error", null];
  return { error: { message, type, param: null, code } };
}

const openaiApi: TextApi<OpenAIStubUsage> = {
  defaultUsage: { prompt_tokens: 20, completion_tokens: 5, cached_tokens: 0, reasoning_tokens: 0 },
  idPrefix: "stub",
  route(method, url) {
    if (method !== "POST") return null;
    if (url.pathname === "/v1/chat/completions") return { endpoint: "chat" };
    if (url.pathname === "/v1/responses") return { endpoint: "responses" };
    return null;
  },
  authorized: (headers, _url, key) => headers.get("authorization") === `Bearer ${key}`,
  unauthorized(headers) {
    const given = headers.get("authorization")?.replace(/^Bearer /, "");
    if (!given)
      return error(
        401,
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        "invalid_request_error",
        null,
      );
    return error(
      401,
      `Incorrect API key provided: ${mask(given)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      "invalid_request_error",
      "invalid_api_key",
    );
  },
  notFound(method, path, model) {
    if (model !== undefined)
      return error(
        404,
        `The model \`${model}\` does not exist or you do not have access to it.`,
        "invalid_request_error",
        "model_not_found",
      );
    return error(404, `Invalid URL (${method} ${path})`, "invalid_request_error", null);
  },
  errorBody,
  invalid(endpoint, json) {
    if (typeof json.model !== "string" || json.model === "")
      return error(400, "you must provide a model parameter", "invalid_request_error", null);
    if (endpoint === "chat" && !Array.isArray(json.messages))
      return error(
        400,
        "Missing required parameter: 'messages'.",
        "invalid_request_error",
        "missing_required_parameter",
        "messages",
      );
    return null;
  },
  modelOf: (json) => String(json.model),
  json: (context) => (context.endpoint === "chat" ? chatJson(context) : responsesJson(context)),
  frames: (context) =>
    context.endpoint === "chat" ? chatFrames(context) : responsesFrames(context),
};

export type OpenAITextStub = TextStub<OpenAIStubUsage>;

/**
 * A local OpenAI text API on 127.0.0.1 (random port): `POST /v1/chat/completions` and
 * `POST /v1/responses`, bearer auth, streamed and not. `url` includes /v1, as
 * UPSTREAM_OPENAI_BASE_URL does.
 */
export function startOpenAITextStub(
  options: TextStubOptions<OpenAIStubUsage> = {},
): OpenAITextStub {
  const stub = startTextStub(openaiApi, options);
  return { ...stub, url: `${stub.url}/v1` };
}
