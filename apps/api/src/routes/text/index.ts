import { ErrorBody } from "@gw/schemas";
import {
  ChatRequest,
  GenerateContentRequest,
  MessagesRequest,
  PROMPT_OVERHEAD_HEADER,
  ResponsesRequest,
  type TextFormat,
} from "@gw/textformats";
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { ANY_KEY_STYLE, BEARER_OR_API_KEY } from "../docs.ts";
import { runTextCall } from "./call.ts";

/** Message-style calls take `x-api-key` too (spec 5.2); generate-content calls their own key styles. */
export const MESSAGES_AUTH = { mode: "ordinary" as const, apiKeyHeader: true };
export const GENERATE_CONTENT_AUTH = {
  mode: "ordinary" as const,
  apiKeyHeader: true,
  contentKey: true,
};
export const MESSAGES_PATHS = ["/v1/messages", "/msgcompat/v1/messages"];
export const GENERATE_CONTENT_PATHS = [
  "/v1beta/models/:model",
  "/compatible/v1beta/models/:model",
  // @google/genai pointed at a base URL calls /v1/models/... unless told apiVersion v1beta.
  "/v1/models/:model",
];

const ERRORS = {
  400: ErrorBody,
  401: ErrorBody,
  402: ErrorBody,
  403: ErrorBody,
  429: ErrorBody,
  502: ErrorBody,
  503: ErrorBody,
  504: ErrorBody,
};

/** The answer: the format's JSON, or its SSE stream when the request asked to stream. */
const Answer = (format: string) =>
  t.Object(
    {},
    {
      additionalProperties: true,
      description: `The ${format} answer, as its public API shapes it.`,
    },
  );

const answered = (format: string) => ({
  200: {
    description: `The ${format} answer; an SSE stream (text/event-stream) when the request streams. The ${PROMPT_OVERHEAD_HEADER} header (spec 4.11) carries the provider's prompt overhead when it is large.`,
    headers: {
      [PROMPT_OVERHEAD_HEADER]: {
        description:
          "Input tokens the provider reported beyond the gateway's own count (spec 4.11).",
        schema: { type: "integer" as const },
      },
    },
    content: {
      "application/json": { schema: Answer(format) },
      "text/event-stream": {
        schema: { type: "string" as const, description: "Server-sent events of the format." },
      },
    },
  },
});

/** `gemini-x:generateContent` or `:streamGenerateContent` of a generate-content path. */
function generateContentCall(call: string): { model: string; stream: boolean } {
  const match = /^(.+):(generateContent|streamGenerateContent)$/.exec(call);
  if (!match)
    throw new ApiError(
      "not_found",
      "Call models/{model}:generateContent or models/{model}:streamGenerateContent",
    );
  return { model: decodeURIComponent(match[1]!), stream: match[2] === "streamGenerateContent" };
}

/**
 * The text generation endpoints (issue 15): OpenAI chat completions and responses, the
 * message style (also under /msgcompat) and generate-content (also under /compatible),
 * each streamed as its public API streams. Every call is metered by tokens: the estimate
 * held before the upstream call, the reported usage charged after the answer.
 */
export function textRoutes(ctx: AppContext) {
  const { auth, rateLimit } = ctx;
  const run =
    (clientFormat: TextFormat) =>
    (input: { principal: Parameters<typeof runTextCall>[1]; body: unknown }) =>
      runTextCall(ctx, input.principal, { clientFormat, body: input.body as never });
  const app = new Elysia({ name: "gw/routes/text" })
    .use(auth)
    .use(rateLimit)
    .post("/v1/chat/completions", run("chat"), {
      auth: { mode: "ordinary" },
      limit: { failClosed: true },
      body: ChatRequest,
      response: { 200: Answer("chat completion"), ...ERRORS },
      detail: {
        tags: ["text"],
        summary: "Chat completions (OpenAI's API), metered by tokens",
        responses: answered("chat.completion"),
      },
    })
    .post("/v1/responses", run("responses"), {
      auth: { mode: "ordinary" },
      limit: { failClosed: true },
      body: ResponsesRequest,
      response: { 200: Answer("response"), ...ERRORS },
      detail: {
        tags: ["text"],
        summary: "Responses (OpenAI's API), metered by tokens",
        responses: answered("response"),
      },
    });
  for (const path of MESSAGES_PATHS)
    app.post(path, run("messages"), {
      auth: MESSAGES_AUTH,
      limit: { failClosed: true },
      body: MessagesRequest,
      response: { 200: Answer("message"), ...ERRORS },
      detail: {
        tags: ["text"],
        summary: "Messages (message-style API), metered by tokens",
        security: BEARER_OR_API_KEY,
        responses: answered("message"),
      },
    });
  for (const path of GENERATE_CONTENT_PATHS)
    app.post(
      path,
      ({ principal, body, params }) =>
        runTextCall(ctx, principal, {
          clientFormat: "generateContent",
          body: body as never,
          path: generateContentCall(params.model),
        }),
      {
        auth: GENERATE_CONTENT_AUTH,
        limit: { failClosed: true },
        params: t.Object({
          model: t.String({
            description:
              "`{model}:generateContent` or `{model}:streamGenerateContent` (with `?alt=sse`)",
          }),
        }),
        body: GenerateContentRequest,
        response: { 200: Answer("GenerateContentResponse"), ...ERRORS },
        detail: {
          tags: ["text"],
          summary:
            "generateContent / streamGenerateContent (generate-content API), metered by tokens",
          security: ANY_KEY_STYLE,
          responses: answered("GenerateContentResponse"),
        },
      },
    );
  return app;
}
