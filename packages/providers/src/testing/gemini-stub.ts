import {
  type AnswerContext,
  startTextStub,
  type TextApi,
  type TextStub,
  type TextStubOptions,
  textPieces,
} from "./text-stub-server.ts";

/*
 * The Gemini API's generateContent as documented (ai.google.dev/api/generate-content),
 * written by hand: `x-goog-api-key` (or `?key=`), the model in the path,
 * `:streamGenerateContent?alt=sse` as `data:` frames separated by CRLF blank lines (a JSON
 * array without alt=sse), usageMetadata running totals with the finishReason on the last
 * chunk, and Google's error shape `{error: {code, message, status}}` — including its 400
 * API_KEY_INVALID for a wrong key.
 */

/** Usage in Gemini's terms: promptTokenCount includes cachedContentTokenCount. */
export interface GeminiStubUsage {
  promptTokenCount: number;
  candidatesTokenCount: number;
  cachedContentTokenCount: number;
  thoughtsTokenCount: number;
}

type Context = AnswerContext<GeminiStubUsage>;
type Json = Record<string, unknown>;

const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

const errorJson = (code: number, message: string, details?: Json[]): Json => ({
  error: {
    code,
    message,
    status: STATUS_NAMES[code] ?? "UNKNOWN",
    ...(details ? { details } : {}),
  },
});
const error = (code: number, message: string, details?: Json[]) =>
  Response.json(errorJson(code, message, details), { status: code });

function usageMetadata(usage: GeminiStubUsage, final: boolean): Json {
  const output = final ? usage.candidatesTokenCount : 0;
  const thoughts = final ? usage.thoughtsTokenCount : 0;
  return {
    promptTokenCount: usage.promptTokenCount,
    ...(final ? { candidatesTokenCount: output } : {}),
    totalTokenCount: usage.promptTokenCount + output + thoughts,
    ...(usage.cachedContentTokenCount > 0
      ? { cachedContentTokenCount: usage.cachedContentTokenCount }
      : {}),
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
    promptTokensDetails: [{ modality: "TEXT", tokenCount: usage.promptTokenCount }],
    ...(usage.cachedContentTokenCount > 0
      ? { cacheTokensDetails: [{ modality: "TEXT", tokenCount: usage.cachedContentTokenCount }] }
      : {}),
  };
}

function functionCall(context: Context): Json | undefined {
  const call = context.answer.toolCall;
  if (!call) return undefined;
  let args: unknown = {};
  try {
    args = JSON.parse(call.arguments);
  } catch {
    args = {};
  }
  return { functionCall: { name: call.name, args } };
}

/** One GenerateContentResponse with these parts; the last carries finishReason and full usage. */
function chunk(context: Context, parts: Json[], final: boolean): Json {
  return {
    candidates: [
      {
        content: { parts, role: "model" },
        ...(final ? { finishReason: "STOP" } : {}),
        index: 0,
      },
    ],
    ...(context.usage ? { usageMetadata: usageMetadata(context.usage, final) } : {}),
    modelVersion: context.model,
    responseId: context.id,
  };
}

function wholeJson(context: Context): Json {
  const parts: Json[] = [];
  if (context.answer.text !== "") parts.push({ text: context.answer.text });
  const call = functionCall(context);
  if (call) parts.push(call);
  return chunk(context, parts, true);
}

function streamChunks(context: Context): Json[] {
  const partsList: Json[][] = textPieces(context.answer.text).map((text) => [{ text }]);
  const call = functionCall(context);
  if (call) partsList.push([call]);
  if (partsList.length === 0) partsList.push([{ text: "" }]);
  return partsList.map((parts, i) => chunk(context, parts, i === partsList.length - 1));
}

function errorBody(status: number): Json {
  if (status === 429) return errorJson(429, "Resource has been exhausted (e.g. check quota).");
  if (status === 503) return errorJson(503, "The model is overloaded. Please try again later.");
  if (status >= 500)
    return errorJson(
      status,
      "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
    );
  return errorJson(status, `scripted ${status}`);
}

const PATH = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

const geminiApi: TextApi<GeminiStubUsage> = {
  defaultUsage: {
    promptTokenCount: 20,
    candidatesTokenCount: 5,
    cachedContentTokenCount: 0,
    thoughtsTokenCount: 0,
  },
  idPrefix: "stubResp",
  route(method, url) {
    const match = PATH.exec(url.pathname);
    if (method !== "POST" || !match) return null;
    const stream = match[2] === "streamGenerateContent";
    return {
      endpoint: "generateContent",
      model: decodeURIComponent(match[1]!),
      streamFromPath: stream,
      sse: url.searchParams.get("alt") === "sse",
    };
  },
  authorized: (headers, url, key) =>
    (headers.get("x-goog-api-key") ?? url.searchParams.get("key")) === key,
  unauthorized(headers, url) {
    if (!headers.get("x-goog-api-key") && !url.searchParams.get("key"))
      return error(
        403,
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
      );
    return error(400, "API key not valid. Please pass a valid API key.", [
      {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: "API_KEY_INVALID",
        domain: "googleapis.com",
        metadata: { service: "generativelanguage.googleapis.com" },
      },
    ]);
  },
  notFound: (_method, path, model) =>
    model === undefined
      ? error(404, `The requested URL ${path} was not found on this server.`)
      : error(
          404,
          `models/${model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
        ),
  errorBody,
  invalid(_endpoint, json) {
    if (!Array.isArray(json.contents) || json.contents.length === 0)
      return error(400, "* GenerateContentRequest.contents: contents is not specified\n");
    return null;
  },
  modelOf: (_json, routed) => routed ?? "",
  json: wholeJson,
  frames: (context) => streamChunks(context).map((item) => `data: ${JSON.stringify(item)}\r\n\r\n`),
  streamAsJson: streamChunks,
};

export type GeminiStub = TextStub<GeminiStubUsage>;

/**
 * A local Gemini API on 127.0.0.1 (random port): `POST /v1beta/models/{model}:generateContent`
 * and `:streamGenerateContent`. `url` has no version, as UPSTREAM_GEMINI_BASE_URL does not.
 */
export function startGeminiStub(options: TextStubOptions<GeminiStubUsage> = {}): GeminiStub {
  return startTextStub(geminiApi, options);
}
