import {
  failure,
  type ImageJob,
  isMask,
  type OutputFile,
  type Provider,
  type ProviderFailureCode,
  type ProviderResult,
} from "../types.ts";
import { BodyTooLargeError, readCapped, wait } from "../wait.ts";
import { editsBody, endpointOf, generationsBody } from "./request.ts";
import {
  classifyStatus,
  type DataItem,
  isRetryableStatus,
  parseData,
  parseUpstreamError,
  RETRY_AFTER_CAP_MS,
  retryAfterMs,
  toOutputFile,
} from "./response.ts";

export interface OpenAIImagesProviderOptions {
  /** Provider name in results and messages. Default "openai". */
  name?: string;
  /** API base including the version, e.g. "https://api.openai.com/v1". */
  baseUrl: string;
  apiKey: string;
  /** Per attempt, including reading the body and downloading URL results. Default 300 000. */
  timeoutMs?: number;
  /** HTTP attempts at most, the first included. Default 3. */
  maxAttempts?: number;
  /** First backoff; doubles per retry, with jitter, up to 30 s. Default 500. */
  retryBaseMs?: number;
  fetch?: typeof fetch;
  /** Cap on one downloaded URL result. Default 50 MiB. */
  maxDownloadBytes?: number;
  /** Cap on one JSON answer (base64 images inside). Default 256 MiB. */
  maxResponseBytes?: number;
}

type Settings = Required<Omit<OpenAIImagesProviderOptions, "fetch">> & { fetch: typeof fetch };

/** Error codes of a connection that never carried a request: connect refused, no route, DNS. */
const NEVER_CONNECTED = new Set([
  "ECONNREFUSED",
  "ConnectionRefused",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "FailedToOpenSocket",
]);
const MAX_DATA_ITEMS = 16;
const ERROR_BODY_BYTES = 64 * 1024;

/** One attempt's outcome: done (success or final failure) or worth another try after a delay. */
type Attempt =
  | { done: ProviderResult }
  | {
      retry: {
        code: ProviderFailureCode;
        message: string;
        delayMs: number | null;
      };
    };

/**
 * The OpenAI Images API (`/images/generations`, `/images/edits`) and compatible gateways.
 * Retries only what cannot have started a generation; see README "Transient failures".
 */
export function createOpenAIImagesProvider(options: OpenAIImagesProviderOptions): Provider {
  const settings: Settings = {
    name: options.name ?? "openai",
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    apiKey: options.apiKey,
    timeoutMs: options.timeoutMs ?? 300_000,
    maxAttempts: Math.max(1, Math.floor(options.maxAttempts ?? 3)),
    retryBaseMs: options.retryBaseMs ?? 500,
    fetch: options.fetch ?? fetch,
    maxDownloadBytes: options.maxDownloadBytes ?? 50 * 1024 * 1024,
    maxResponseBytes: options.maxResponseBytes ?? 256 * 1024 * 1024,
  };
  new URL(settings.baseUrl); // a malformed base URL is a configuration error: throw now
  return { name: settings.name, run: (job) => run(settings, job) };
}

async function run(settings: Settings, job: ImageJob): Promise<ProviderResult> {
  const endpoint = endpointOf(job.operation);
  if (!endpoint) {
    return failure(
      "invalid_request",
      `operation ${job.operation} is not supported by provider ${settings.name}`,
      0,
    );
  }
  const prompt = job.prompt ?? "";
  if (prompt.trim() === "") {
    return failure("invalid_request", `provider ${settings.name} needs a prompt`, 0);
  }
  if (endpoint === "edits" && !job.images.some((image) => !isMask(image))) {
    return failure("invalid_request", `operation ${job.operation} needs a source image`, 0);
  }
  const url = `${settings.baseUrl}/images/${endpoint}`;
  for (let attempt = 1; ; attempt++) {
    if (job.signal?.aborted) {
      return failure("upstream_timeout", "aborted by the caller", attempt - 1);
    }
    const body = endpoint === "edits" ? editsBody(job, prompt) : generationsBody(job, prompt);
    const outcome = await attemptOnce(settings, job, url, body);
    if ("done" in outcome) return { ...outcome.done, attempts: attempt };
    const { code, message, delayMs } = outcome.retry;
    if (attempt >= settings.maxAttempts) return failure(code, message, attempt);
    const backoff = Math.min(settings.retryBaseMs * 2 ** (attempt - 1), RETRY_AFTER_CAP_MS);
    // Jitter spreads the retries of many workers that were refused at the same moment.
    if (!(await wait(delayMs ?? backoff * (0.5 + Math.random() / 2), job.signal))) {
      return failure("upstream_timeout", "aborted by the caller", attempt);
    }
  }
}

async function attemptOnce(
  settings: Settings,
  job: ImageJob,
  url: string,
  body: string | FormData,
): Promise<Attempt> {
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  const signal = job.signal ? AbortSignal.any([timeout, job.signal]) : timeout;
  const headers: Record<string, string> = {
    authorization: `Bearer ${settings.apiKey}`,
    accept: "application/json",
  };
  if (typeof body === "string") headers["content-type"] = "application/json";
  let response: Response;
  try {
    response = await settings.fetch(url, {
      method: "POST",
      headers,
      body,
      signal,
      redirect: "manual",
    });
  } catch (error) {
    return fetchFailed(settings, job, error);
  }
  try {
    if (response.ok) return { done: await success(settings, response, signal) };
    const error = parseUpstreamError(await readCapped(response, ERROR_BODY_BYTES));
    const final = classifyStatus(response.status, error, settings.apiKey);
    if (isRetryableStatus(response.status)) {
      const delayMs = retryAfterMs(response.headers, Date.now());
      return { retry: { ...final, delayMs } };
    }
    return { done: failure(final.code, final.message, 1) };
  } catch (error) {
    return { done: bodyFailed(settings, job, error) };
  }
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
}

/** fetch() rejected: no response arrived. Only a connection that never carried the request is retried. */
function fetchFailed(settings: Settings, job: ImageJob, error: unknown): Attempt {
  if (job.signal?.aborted) return { done: failure("upstream_timeout", "aborted by the caller", 1) };
  const name = (error as Error | null)?.name;
  if (name === "TimeoutError" || name === "AbortError") {
    return {
      done: failure(
        "upstream_timeout",
        `no answer from ${settings.name} within ${settings.timeoutMs} ms`,
        1,
      ),
    };
  }
  const code = errorCode(error);
  // A connection reset after the request went out is ambiguous (a proxy may have
  // forwarded it and the upstream may bill), so only a connection never made is retried.
  if (NEVER_CONNECTED.has(code)) {
    return {
      retry: {
        code: "upstream_unavailable",
        message: `cannot reach ${settings.name} (${code})`,
        delayMs: null,
      },
    };
  }
  return {
    done: failure(
      "upstream_error",
      `request to ${settings.name} failed (${code || name || "unknown"})`,
      1,
    ),
  };
}

/** The answer began but its body (or a URL result) failed: the image may exist upstream, so never retried. */
function bodyFailed(settings: Settings, job: ImageJob, error: unknown): ProviderResult {
  if (job.signal?.aborted) return failure("upstream_timeout", "aborted by the caller", 1);
  const name = (error as Error | null)?.name;
  if (name === "TimeoutError" || name === "AbortError") {
    return failure(
      "upstream_timeout",
      `answer from ${settings.name} not complete within ${settings.timeoutMs} ms`,
      1,
    );
  }
  if (error instanceof BodyTooLargeError) {
    return failure("upstream_error", `answer from ${settings.name} ${error.message}`, 1);
  }
  return failure(
    "upstream_error",
    `answer from ${settings.name} broke off (${errorCode(error) || name || "unknown"})`,
    1,
  );
}

async function success(
  settings: Settings,
  response: Response,
  signal: AbortSignal,
): Promise<ProviderResult> {
  const items = parseData(await readCapped(response, settings.maxResponseBytes), MAX_DATA_ITEMS);
  if (typeof items === "string") return failure("upstream_error", items, 1);
  const files: OutputFile[] = [];
  for (const [i, item] of items.entries()) {
    const bytes = "bytes" in item ? item.bytes : await download(settings, item, signal);
    if (typeof bytes === "string") return failure("upstream_error", bytes, 1);
    const file = toOutputFile(bytes);
    if (!file) {
      return failure("upstream_error", `upstream image ${i + 1} is not a PNG, JPEG or WebP`, 1);
    }
    files.push(file);
  }
  return { ok: true, files, attempts: 1 };
}

/** Fetches a URL result from the provider's own origin (never elsewhere: no SSRF through answers). */
async function download(
  settings: Settings,
  item: Extract<DataItem, { url: string }>,
  signal: AbortSignal,
): Promise<Uint8Array | string> {
  let target: URL;
  try {
    target = new URL(item.url, `${settings.baseUrl}/`);
  } catch {
    return "upstream answered an image URL that does not parse";
  }
  if (target.origin !== new URL(settings.baseUrl).origin) {
    return `upstream image URL is not on the ${settings.name} host`;
  }
  const response = await settings.fetch(target, {
    headers: { authorization: `Bearer ${settings.apiKey}` },
    signal,
    redirect: "manual",
  });
  if (!response.ok) {
    await response.body?.cancel();
    return `downloading an upstream image answered ${response.status}`;
  }
  return readCapped(response, settings.maxDownloadBytes);
}
