import { cleanMessage } from "../openai/response.ts";
import type { TextFailure } from "./types.ts";

/**
 * How one upstream failure maps to a text failure, and whether it may be retried. The
 * table is in src/text/README.md, "Transient failures"; the rule is that only an
 * answer or error proving the upstream started nothing is retried.
 */
export interface Verdict {
  failure: TextFailure;
  retryable: boolean;
}

/** "Not now" answers given before any generation: rate limits, unavailable, overloaded (529). */
const RETRYABLE_STATUSES = new Set([429, 503, 529]);
/** Our account or credentials, not the client's request: an operator must act. */
const CONFIGURATION_STATUSES = new Set([401, 402, 403, 407]);

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

const fail = (failure: Omit<TextFailure, "ok">, retryable = false): Verdict => ({
  failure: { ok: false, ...failure },
  retryable,
});

/** The upstream's error body: JSON when it parses, else its text; the key scrubbed either way. */
export function errorBody(text: string, apiKey: string): unknown {
  const scrubbed = apiKey.length >= 4 ? text.split(apiKey).join("[redacted]") : text;
  try {
    return JSON.parse(scrubbed);
  } catch {
    return scrubbed;
  }
}

/** `error.message` (OpenAI, Anthropic and Gemini all use it), else the body's text. */
export function errorMessage(body: unknown, apiKey: string): string {
  if (typeof body === "string") return cleanMessage(body, apiKey);
  const error = (body as { error?: { message?: unknown } } | null)?.error;
  return typeof error?.message === "string" ? cleanMessage(error.message, apiKey) : "";
}

/**
 * A non-2xx answer. `credentialsRejected` marks answers an API gives for a bad key with
 * another status (Gemini: 400 API_KEY_INVALID), which are ours to fix, not the client's.
 */
export function statusVerdict(
  provider: string,
  status: number,
  body: unknown,
  apiKey: string,
  credentialsRejected = false,
): Verdict {
  const detail = errorMessage(body, apiKey);
  const said = detail ? `: ${detail}` : "";
  if (credentialsRejected || CONFIGURATION_STATUSES.has(status)) {
    // The upstream's text may quote the key or describe our account: none of it is shown.
    const message = `provider ${provider} rejected the gateway's credentials (${status})`;
    return fail({ code: "upstream_unavailable", status, message, started: false });
  }
  if (RETRYABLE_STATUSES.has(status)) {
    const what = status === 429 ? "is rate limiting the gateway" : "is unavailable";
    const message = `provider ${provider} ${what} (${status})${said}`;
    return fail({ code: "upstream_unavailable", status, message, started: false }, true);
  }
  if (status === 408) {
    const message = `provider ${provider} timed out reading the request (408)${said}`;
    return fail({ code: "upstream_timeout", status, message, started: false });
  }
  if (status >= 400 && status < 500) {
    const message = detail || `provider ${provider} refused the request (${status})`;
    return fail({ code: "upstream_rejected", status, message, body, started: false });
  }
  // A 500, 502 or 504 may come from a proxy after the upstream began: never retried.
  const started = status >= 500;
  const message = `provider ${provider} failed (${status})${said}`;
  return fail({ code: "upstream_error", status, message, started });
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
}

/** fetch() rejected before any answer: only a connection never made is retried. */
export function fetchVerdict(
  provider: string,
  error: unknown,
  why: "caller" | "timeout" | undefined,
  timeoutMs: number,
): Verdict {
  if (why === "caller") {
    return fail({ code: "upstream_timeout", message: "aborted by the caller", started: true });
  }
  if (why === "timeout") {
    const message = `no answer from ${provider} within ${timeoutMs} ms`;
    return fail({ code: "upstream_timeout", message, started: true });
  }
  const code = errorCode(error);
  if (NEVER_CONNECTED.has(code)) {
    const message = `cannot reach provider ${provider} (${code})`;
    return fail({ code: "upstream_unavailable", message, started: false }, true);
  }
  // A reset after the request went out is ambiguous: a proxy may have forwarded it.
  const name = (error as Error | null)?.name;
  const message = `request to ${provider} failed (${code || name || "unknown"})`;
  return fail({ code: "upstream_error", message, started: true });
}
