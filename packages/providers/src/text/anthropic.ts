import type { TextFormat } from "@gw/textformats";
import { callUpstream, type HttpTextProviderOptions, httpSettings } from "./http-call.ts";
import type { TextProvider } from "./types.ts";

const FORMATS: readonly TextFormat[] = ["messages"];
export const ANTHROPIC_VERSION = "2023-06-01";

/**
 * The Anthropic Messages API: `POST {baseUrl}/v1/messages` with `x-api-key` and
 * `anthropic-version: 2023-06-01`; `baseUrl` without the version (`https://api.anthropic.com`).
 * A 529 (overloaded) is retried like a 503: nothing was generated.
 */
export function createAnthropicTextProvider(options: HttpTextProviderOptions): TextProvider {
  const { settings, baseUrl } = httpSettings(options, "anthropic");
  const url = `${baseUrl}/v1/messages`;
  return {
    name: settings.name,
    formats: FORMATS,
    call(call) {
      if (call.format !== "messages")
        throw new TypeError(`provider ${settings.name} does not speak ${call.format}`);
      const headers = {
        "x-api-key": options.apiKey,
        "anthropic-version": ANTHROPIC_VERSION,
        "content-type": "application/json",
        accept: call.stream ? "text/event-stream" : "application/json",
      };
      const body: Record<string, unknown> = { ...call.body, model: call.upstreamModel };
      if (call.stream) body.stream = true;
      else if (body.stream !== undefined) body.stream = false;
      return callUpstream(
        settings,
        { url, headers, body: JSON.stringify(body), stream: call.stream },
        call.signal,
      );
    },
  };
}
