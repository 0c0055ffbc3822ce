import { RETRY_AFTER_CAP_MS, retryAfterMs } from "../openai/response.ts";
import { BodyTooLargeError, readCapped, wait } from "../wait.ts";
import { createLane, type Lane } from "./lane.ts";
import type { TextAnswer, TextFailure } from "./types.ts";
import { errorBody, fetchVerdict, statusVerdict, type Verdict } from "./upstream-errors.ts";

/** What every HTTP text adapter takes. */
export interface HttpTextProviderOptions {
  /** Name in answers and messages. Defaults to the adapter's (openai, anthropic, gemini). */
  name?: string;
  baseUrl: string;
  apiKey: string;
  /** Longest wait for the answer's head, for a whole JSON answer, and between stream chunks. Default 300 000. */
  timeoutMs?: number;
  /** HTTP attempts at most, the first included. Default 3. */
  maxAttempts?: number;
  /** First backoff; doubles per retry, with jitter. Default 500. */
  retryBaseMs?: number;
  /** A retry that would wait longer than this (Retry-After included) is not made. Default 10 000. */
  maxRetryWaitMs?: number;
  /** Calls in flight at once (`UPSTREAM_<NAME>_CONCURRENCY`); the rest wait their turn. Default 2048. */
  concurrency?: number;
  /** Cap on one JSON answer. Default 32 MiB. */
  maxResponseBytes?: number;
  fetch?: typeof fetch;
}

export interface HttpSettings {
  name: string;
  apiKey: string;
  timeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  maxRetryWaitMs: number;
  maxResponseBytes: number;
  fetch: typeof fetch;
  lane: Lane;
  /** An answer that means our key is bad whatever its status (Gemini's 400 API_KEY_INVALID). */
  credentialsRejected?: (status: number, body: unknown) => boolean;
}

/** One upstream request, built by an adapter: the body is stringified once, there. */
export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  stream: boolean;
}

const ERROR_BODY_BYTES = 64 * 1024;

/** Settings with defaults; a malformed base URL is a configuration error and throws now. */
export function httpSettings(
  options: HttpTextProviderOptions,
  defaultName: string,
): { settings: HttpSettings; baseUrl: string } {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  new URL(baseUrl);
  const concurrency = Math.floor(options.concurrency ?? 2048);
  const settings: HttpSettings = {
    name: options.name ?? defaultName,
    apiKey: options.apiKey,
    timeoutMs: options.timeoutMs ?? 300_000,
    maxAttempts: Math.max(1, Math.floor(options.maxAttempts ?? 3)),
    retryBaseMs: options.retryBaseMs ?? 500,
    maxRetryWaitMs: Math.min(options.maxRetryWaitMs ?? 10_000, RETRY_AFTER_CAP_MS),
    maxResponseBytes: options.maxResponseBytes ?? 32 * 1024 * 1024,
    fetch: options.fetch ?? fetch,
    lane: createLane(concurrency),
  };
  return { settings, baseUrl };
}

type Attempt = { answer: TextAnswer } | { verdict: Verdict; delayMs: number | null };

/**
 * Sends one text request, retrying only what proves nothing started upstream (see
 * upstream-errors.ts), with exponential backoff and jitter or the upstream's Retry-After.
 */
export async function callUpstream(
  settings: HttpSettings,
  request: UpstreamRequest,
  signal: AbortSignal,
): Promise<TextAnswer> {
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptOnce(settings, request, signal);
    if ("answer" in outcome) return outcome.answer;
    const { verdict, delayMs } = outcome;
    if (!verdict.retryable || attempt >= settings.maxAttempts) return verdict.failure;
    const backoff = settings.retryBaseMs * 2 ** (attempt - 1);
    // Jitter spreads the retries of many calls refused at the same moment.
    const delay = delayMs ?? backoff * (0.5 + Math.random() / 2);
    if (delay > settings.maxRetryWaitMs) return verdict.failure;
    if (!(await wait(delay, signal))) return callerGone(false);
  }
}

const callerGone = (started: boolean): TextFailure => ({
  ok: false,
  code: "upstream_timeout",
  message: "aborted by the caller",
  started,
});

async function attemptOnce(
  settings: HttpSettings,
  request: UpstreamRequest,
  signal: AbortSignal,
): Promise<Attempt> {
  const { lane, timeoutMs } = settings;
  if (signal.aborted) return { answer: callerGone(false) };
  if (!lane.tryAcquire() && !(await lane.wait(signal, timeoutMs))) {
    if (signal.aborted) return { answer: callerGone(false) };
    const message = `all ${lane.limit} lanes to ${settings.name} stayed busy for ${timeoutMs} ms`;
    return { answer: { ok: false, code: "upstream_unavailable", message, started: false } };
  }
  if (signal.aborted) {
    lane.release();
    return { answer: callerGone(false) };
  }
  // One controller per attempt, aborted by our timer or the caller; no AbortSignal.timeout,
  // whose timer would outlive every fast call by the full timeout.
  const controller = new AbortController();
  let why: "caller" | "timeout" | undefined;
  const onTimeout = () => {
    why = "timeout";
    controller.abort(
      new DOMException(`no data from ${settings.name} within ${timeoutMs} ms`, "TimeoutError"),
    );
  };
  const onAbort = () => {
    why ??= "caller";
    controller.abort(signal.reason);
  };
  const timer = setTimeout(onTimeout, timeoutMs);
  signal.addEventListener("abort", onAbort, { once: true });
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
    lane.release();
  };
  let response: Response;
  try {
    response = await settings.fetch(request.url, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      signal: controller.signal,
      redirect: "manual",
    });
  } catch (error) {
    finish();
    return { verdict: fetchVerdict(settings.name, error, why, timeoutMs), delayMs: null };
  }
  if (response.ok && request.stream && response.body) {
    return {
      answer: { ok: true, status: response.status, sse: guarded(response.body, timer, finish) },
    };
  }
  try {
    if (response.ok) return { answer: await jsonAnswer(settings, response, () => why) };
    const text = new TextDecoder().decode(await readCapped(response, ERROR_BODY_BYTES));
    const body = errorBody(text, settings.apiKey);
    const rejected = settings.credentialsRejected?.(response.status, body) ?? false;
    const verdict = statusVerdict(settings.name, response.status, body, settings.apiKey, rejected);
    return { verdict, delayMs: retryAfterMs(response.headers, Date.now()) };
  } catch (error) {
    return { answer: brokenAnswer(settings, error, why) };
  } finally {
    finish();
  }
}

/** A whole JSON answer; Bun's own parser when the size is declared and within the cap. */
async function jsonAnswer(
  settings: HttpSettings,
  response: Response,
  why: () => "caller" | "timeout" | undefined,
): Promise<TextAnswer> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  let json: unknown;
  try {
    if (declared <= settings.maxResponseBytes) json = await response.json();
    else
      json = JSON.parse(
        new TextDecoder().decode(await readCapped(response, settings.maxResponseBytes)),
      );
  } catch (error) {
    if (!(error instanceof SyntaxError)) return brokenAnswer(settings, error, why());
    const message = `provider ${settings.name} answered ${response.status} with a body that is not JSON`;
    return { ok: false, code: "upstream_error", status: response.status, message, started: true };
  }
  return { ok: true, status: response.status, json };
}

/** The answer began and then failed: generation has run, so this is never retried. */
function brokenAnswer(
  settings: HttpSettings,
  error: unknown,
  why: "caller" | "timeout" | undefined,
): TextFailure {
  if (why === "caller") return callerGone(true);
  const name = settings.name;
  let message = `answer from ${name} broke off (${(error as Error | null)?.name ?? "unknown"})`;
  if (why === "timeout")
    message = `answer from ${name} not complete within ${settings.timeoutMs} ms`;
  if (error instanceof BodyTooLargeError) message = `answer from ${name} ${error.message}`;
  const code = why === "timeout" ? "upstream_timeout" : "upstream_error";
  return { ok: false, code, message, started: true };
}

/**
 * The upstream's SSE bytes as they come, with the attempt's timer restarted by each chunk
 * (so it bounds silence, not the length of an answer) and the lane freed when the stream
 * ends, fails or is cancelled. Pulled one chunk at a time: backpressure reaches the upstream.
 */
function guarded(
  body: ReadableStream<Uint8Array>,
  timer: ReturnType<typeof setTimeout>,
  finish: () => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          finish();
          controller.close();
          return;
        }
        timer.refresh();
        controller.enqueue(value);
      } catch (error) {
        finish();
        controller.error(error);
      }
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
}
