import type { AudioProvider, AudioResult } from "./offline.ts";
import { AUDIO_CONTENT_TYPES, type AudioFormat, CODEC_PADDING_S, measureSeconds } from "./tone.ts";

export interface OpenAISpeechOptions {
  name?: string;
  /** e.g. https://api.openai.com/v1 */
  baseUrl: string;
  apiKey: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Largest audio file accepted. Default 50 MB. */
  maxBytes?: number;
}

/** The catalog's voices as OpenAI's: the standard voice is `alloy`. */
export const OPENAI_VOICES: Record<string, string> = {
  standard: "alloy",
  warm: "onyx",
  bright: "nova",
  narrator: "fable",
};

/**
 * An OpenAI-compatible `POST /audio/speech` (text in, audio bytes out). Speech only; the
 * billed seconds are the file's decoded length rounded up to a whole second. A speech call
 * may have run once it was sent, so it is not retried: a failure fails the task, and the
 * reserve comes back.
 */
export function createOpenAISpeechProvider(options: OpenAISpeechOptions): AudioProvider {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  new URL(baseUrl); // a malformed base URL is a configuration error: throw now
  const doFetch = options.fetch ?? fetch;
  const maxBytes = options.maxBytes ?? 50 * 1024 * 1024;
  const name = options.name ?? "openai";
  return {
    name,
    async run(job): Promise<AudioResult> {
      if (job.operation !== "text-to-speech")
        return {
          ok: false,
          code: "invalid_request",
          message: `operation ${job.operation} is not supported by provider ${name}`,
        };
      const format: AudioFormat = job.input.format === "wav" ? "wav" : "mp3";
      const voice = OPENAI_VOICES[String(job.input.voice ?? "standard")] ?? "alloy";
      const timeout = AbortSignal.timeout(options.timeoutMs ?? 300_000);
      const signal = job.signal ? AbortSignal.any([timeout, job.signal]) : timeout;
      let response: Response;
      try {
        response = await doFetch(`${baseUrl}/audio/speech`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${options.apiKey}`,
            "content-type": "application/json",
          },
          body: JSON.stringify({
            model: job.upstreamModel ?? job.model,
            input: job.prompt ?? "",
            voice,
            speed: typeof job.input.speed === "number" ? job.input.speed : 1,
            response_format: format,
          }),
          signal,
        });
      } catch (error) {
        return {
          ok: false,
          code: timeout.aborted ? "upstream_timeout" : "upstream_error",
          message: `provider ${name} did not answer: ${error instanceof Error ? error.message : error}`,
        };
      }
      if (!response.ok) {
        const text = (await response.text().catch(() => "")).slice(0, 300);
        return {
          ok: false,
          code: response.status === 400 ? "invalid_request" : "upstream_error",
          message: `provider ${name} answered HTTP ${response.status}: ${text}`,
        };
      }
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (bytes.byteLength === 0 || bytes.byteLength > maxBytes)
        return {
          ok: false,
          code: "upstream_error",
          message: `provider ${name} sent ${bytes.byteLength} bytes of audio`,
        };
      let seconds: number;
      try {
        seconds = Math.max(1, Math.ceil((await measureSeconds(bytes)) - CODEC_PADDING_S));
      } catch {
        return {
          ok: false,
          code: "upstream_error",
          message: `provider ${name} sent audio that does not decode`,
        };
      }
      return {
        ok: true,
        tracks: [
          { bytes, contentType: AUDIO_CONTENT_TYPES[format], ext: format, seconds, name: "speech" },
        ],
      };
    },
  };
}
