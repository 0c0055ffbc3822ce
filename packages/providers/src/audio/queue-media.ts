import type { AudioProvider, AudioResult, AudioTrack } from "./offline.ts";
import { CODEC_PADDING_S, measureSeconds } from "./tone.ts";

export interface QueueMediaOptions {
  name?: string;
  /** e.g. https://queue.fal.run */
  baseUrl: string;
  apiKey: string;
  /** Between status polls. Default 2 000. */
  pollMs?: number;
  /** The whole task: submit, waiting, results. Default 600 000. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  maxBytes?: number;
}

interface Submitted {
  request_id?: string;
  status_url?: string;
  response_url?: string;
}

interface AudioOutput {
  url?: string;
  content_type?: string;
  duration?: number;
  file_name?: string;
}

const EXTENSIONS: Record<string, AudioTrack["ext"]> = {
  "audio/mpeg": "mp3",
  "audio/mp3": "mp3",
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/wave": "wav",
};

/** Every audio file a queue result names: `audio`, `audios`, `audio_file` or `tracks`, one or many. */
function outputsOf(result: Record<string, unknown>): AudioOutput[] {
  for (const key of ["audio", "audios", "audio_file", "tracks"]) {
    const value = result[key];
    if (Array.isArray(value)) return value as AudioOutput[];
    if (value && typeof value === "object") return [value as AudioOutput];
  }
  return [];
}

/**
 * A queue-style media API in the shape fal.ai's queue publishes: `POST {base}/{model}` with
 * the input answers `{request_id, status_url, response_url}`; the status URL answers
 * `IN_QUEUE`, `IN_PROGRESS` or `COMPLETED`; the response URL the result, whose audio files
 * are then downloaded. Auth is `Authorization: Key <key>`. The submit is sent once (a
 * second could start a second paid generation); polls and downloads are retried by polling.
 */
export function createQueueMediaProvider(options: QueueMediaOptions): AudioProvider {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  new URL(baseUrl);
  const name = options.name ?? "mediaq";
  const doFetch = options.fetch ?? fetch;
  const pollMs = options.pollMs ?? 2_000;
  const maxBytes = options.maxBytes ?? 50 * 1024 * 1024;
  const headers = { authorization: `Key ${options.apiKey}`, accept: "application/json" };
  const fail = (code: string, message: string): AudioResult => ({
    ok: false,
    code,
    message: `provider ${name}: ${message}`,
  });

  return {
    name,
    async run(job): Promise<AudioResult> {
      const timeout = AbortSignal.timeout(options.timeoutMs ?? 600_000);
      const signal = job.signal ? AbortSignal.any([timeout, job.signal]) : timeout;
      const model = job.upstreamModel ?? job.model;
      let submitted: Submitted;
      try {
        const response = await doFetch(`${baseUrl}/${model}`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify({
            prompt: job.prompt ?? "",
            operation: job.operation,
            ...job.input,
          }),
          signal,
        });
        if (!response.ok)
          return fail(
            response.status === 422 || response.status === 400
              ? "invalid_request"
              : "upstream_error",
            `submit answered HTTP ${response.status}`,
          );
        submitted = (await response.json()) as Submitted;
      } catch (error) {
        return fail(
          timeout.aborted ? "upstream_timeout" : "upstream_error",
          `submit failed: ${error instanceof Error ? error.message : error}`,
        );
      }
      const statusUrl =
        submitted.status_url ?? `${baseUrl}/${model}/requests/${submitted.request_id}/status`;
      const responseUrl =
        submitted.response_url ?? `${baseUrl}/${model}/requests/${submitted.request_id}`;
      try {
        for (;;) {
          const status = await doFetch(statusUrl, { headers, signal });
          if (status.ok) {
            const body = (await status.json()) as { status?: string; error?: string };
            if (body.status === "COMPLETED") break;
            if (body.status === "FAILED" || body.status === "ERROR")
              return fail(
                "upstream_error",
                `the generation failed: ${String(body.error ?? "no reason")}`,
              );
          } else if (status.status === 404 || status.status === 401 || status.status === 403) {
            return fail("upstream_error", `status answered HTTP ${status.status}`);
          }
          await Bun.sleep(pollMs);
          signal.throwIfAborted();
        }
        const result = await doFetch(responseUrl, { headers, signal });
        if (!result.ok) {
          const text = (await result.text().catch(() => "")).slice(0, 200);
          return fail(
            result.status === 422 ? "invalid_request" : "upstream_error",
            `result answered HTTP ${result.status} ${text}`,
          );
        }
        const outputs = outputsOf((await result.json()) as Record<string, unknown>);
        if (outputs.length === 0 || outputs.some((output) => !output.url))
          return fail("upstream_error", "the result names no audio file");
        const tracks: AudioTrack[] = [];
        for (const [index, output] of outputs.entries()) {
          const file = await doFetch(output.url!, { signal });
          if (!file.ok)
            return fail(
              "upstream_error",
              `downloading track ${index} answered HTTP ${file.status}`,
            );
          const bytes = new Uint8Array(await file.arrayBuffer());
          if (bytes.byteLength > maxBytes)
            return fail("upstream_error", `track ${index} is over ${maxBytes} bytes`);
          const type = (output.content_type ?? file.headers.get("content-type") ?? "audio/mpeg")
            .split(";")[0]!
            .trim();
          const ext = EXTENSIONS[type] ?? "mp3";
          const measured = await measureSeconds(bytes);
          tracks.push({
            bytes,
            contentType: ext === "wav" ? "audio/wav" : "audio/mpeg",
            ext,
            seconds: Math.max(1, Math.ceil(measured - CODEC_PADDING_S)),
            ...(output.file_name ? { name: output.file_name } : {}),
          });
        }
        return { ok: true, tracks };
      } catch (error) {
        if (timeout.aborted)
          return fail("upstream_timeout", `no result within ${options.timeoutMs ?? 600_000} ms`);
        if (job.signal?.aborted) return fail("upstream_timeout", "aborted by the caller");
        return fail("upstream_error", `${error instanceof Error ? error.message : error}`);
      }
    },
  };
}
