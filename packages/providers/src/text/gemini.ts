import type { TextFormat } from "@gw/textformats";
import { callUpstream, type HttpTextProviderOptions, httpSettings } from "./http-call.ts";
import type { TextProvider } from "./types.ts";

const FORMATS: readonly TextFormat[] = ["generateContent"];

/**
 * Gemini answers a bad key with 400 INVALID_ARGUMENT and reason API_KEY_INVALID: that is
 * our configuration, not the client's request, so it must not read as a client error.
 */
function keyInvalid(status: number, body: unknown): boolean {
  if (status !== 400) return false;
  const details = (body as { error?: { details?: unknown } } | null)?.error?.details;
  return (
    Array.isArray(details) &&
    details.some((detail) => (detail as { reason?: unknown } | null)?.reason === "API_KEY_INVALID")
  );
}

/** The model as a path segment: a leading `models/` (as Gemini names them) is dropped. */
const modelSegment = (model: string): string =>
  encodeURIComponent(model.startsWith("models/") ? model.slice("models/".length) : model);

/**
 * The Gemini API: `POST {baseUrl}/v1beta/models/{model}:generateContent`, streamed as
 * `:streamGenerateContent?alt=sse`, with `x-goog-api-key`; `baseUrl` without the version
 * (`https://generativelanguage.googleapis.com`). The model and the stream choice live in
 * the path, so the body is sent as given.
 */
export function createGeminiTextProvider(options: HttpTextProviderOptions): TextProvider {
  const { settings, baseUrl } = httpSettings(options, "gemini");
  settings.credentialsRejected = keyInvalid;
  return {
    name: settings.name,
    formats: FORMATS,
    call(call) {
      if (call.format !== "generateContent")
        throw new TypeError(`provider ${settings.name} does not speak ${call.format}`);
      const model = `${baseUrl}/v1beta/models/${modelSegment(call.upstreamModel)}`;
      const url = call.stream
        ? `${model}:streamGenerateContent?alt=sse`
        : `${model}:generateContent`;
      const headers = {
        "x-goog-api-key": options.apiKey,
        "content-type": "application/json",
        accept: call.stream ? "text/event-stream" : "application/json",
      };
      return callUpstream(
        settings,
        { url, headers, body: JSON.stringify(call.body), stream: call.stream },
        call.signal,
      );
    },
  };
}
