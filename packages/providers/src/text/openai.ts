import type { TextFormat } from "@gw/textformats";
import { callUpstream, type HttpTextProviderOptions, httpSettings } from "./http-call.ts";
import type { TextCall, TextProvider } from "./types.ts";

const FORMATS: readonly TextFormat[] = ["chat", "responses"];

/**
 * The body as sent: the client's fields untouched, the upstream model and the stream
 * choice set, and a chat stream made to report usage (stream_options.include_usage),
 * since the gateway charges by it. One shallow copy; the caller's object is not changed.
 */
function wireBody(call: TextCall): Record<string, unknown> {
  const body: Record<string, unknown> = { ...call.body, model: call.upstreamModel };
  if (call.stream) {
    body.stream = true;
    if (call.format === "chat") {
      const options = call.body.stream_options as Record<string, unknown> | null | undefined;
      body.stream_options = { ...options, include_usage: true };
    }
  } else if (body.stream !== undefined) body.stream = false;
  return body;
}

/**
 * OpenAI-compatible text: chat → `POST {baseUrl}/chat/completions`, responses →
 * `POST {baseUrl}/responses`, `Authorization: Bearer`. `baseUrl` includes the version
 * (`https://api.openai.com/v1`). The hot path of the gateway: one stringify, the answer's
 * JSON parsed once, a stream passed through chunk by chunk.
 */
export function createOpenAITextProvider(options: HttpTextProviderOptions): TextProvider {
  const { settings, baseUrl } = httpSettings(options, "openai");
  const urls = { chat: `${baseUrl}/chat/completions`, responses: `${baseUrl}/responses` };
  const authorization = `Bearer ${options.apiKey}`;
  return {
    name: settings.name,
    formats: FORMATS,
    call(call) {
      if (call.format !== "chat" && call.format !== "responses")
        throw new TypeError(`provider ${settings.name} does not speak ${call.format}`);
      const headers = {
        authorization,
        "content-type": "application/json",
        accept: call.stream ? "text/event-stream" : "application/json",
      };
      const body = JSON.stringify(wireBody(call));
      return callUpstream(
        settings,
        { url: urls[call.format], headers, body, stream: call.stream },
        call.signal,
      );
    },
  };
}
