import { sniffImage } from "../image/sniff.ts";
import type { OutputFile, ProviderFailureCode } from "../types.ts";

export const RETRY_AFTER_CAP_MS = 30_000;
const MESSAGE_CHARS = 300;

export interface UpstreamError {
  message: string;
  type: string;
  code: string;
}

/** The OpenAI error shape `{error: {message, type, code}}`, tolerating anything else. */
export function parseUpstreamError(body: Uint8Array): UpstreamError {
  const text = new TextDecoder().decode(body);
  try {
    const error = (JSON.parse(text) as { error?: Record<string, unknown> }).error ?? {};
    const field = (name: string) =>
      typeof error[name] === "string" ? (error[name] as string) : "";
    return { message: field("message"), type: field("type"), code: field("code") };
  } catch {
    return { message: text.slice(0, MESSAGE_CHARS), type: "", code: "" };
  }
}

/** Upstream text fit to show: bounded, one line, and never containing the key. */
export function cleanMessage(message: string, apiKey: string): string {
  let text = message.replace(/\s+/g, " ").trim().slice(0, MESSAGE_CHARS);
  if (apiKey.length >= 4) text = text.split(apiKey).join("[redacted]");
  return text;
}

function isModeration(status: number, error: UpstreamError): boolean {
  if (status !== 400) return false;
  if (error.code === "moderation_blocked" || error.code === "content_policy_violation") return true;
  return /moderation|content_policy/.test(error.type);
}

/** The final outcome of a non-2xx answer that is not retried (see README, "Transient failures"). */
export function classifyStatus(
  status: number,
  error: UpstreamError,
  apiKey: string,
): { code: ProviderFailureCode; message: string } {
  const detail = cleanMessage(error.message, apiKey);
  const said = detail ? `: ${detail}` : "";
  if (isModeration(status, error)) {
    return { code: "moderation", message: detail || "blocked by upstream moderation" };
  }
  if (status === 401 || status === 403) {
    return { code: "upstream_error", message: "provider credentials rejected" };
  }
  if (status === 429) return { code: "rate_limited", message: `upstream rate limit${said}` };
  if (status === 503) {
    return { code: "upstream_unavailable", message: `upstream unavailable (503)${said}` };
  }
  if (status === 408) {
    return { code: "upstream_timeout", message: `upstream timed out (408)${said}` };
  }
  if (status >= 400 && status < 500) {
    return { code: "invalid_request", message: `upstream refused the request (${status})${said}` };
  }
  return { code: "upstream_error", message: `upstream failed (${status})${said}` };
}

/** 429 and 503 say "not now": nothing was generated, so another attempt cannot bill twice. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 503;
}

/** Delay asked by `retry-after-ms` (OpenAI) or `Retry-After` (seconds or HTTP date), capped. */
export function retryAfterMs(headers: Headers, nowMs: number): number | null {
  const ms = Number(headers.get("retry-after-ms") ?? Number.NaN);
  const value = headers.get("retry-after");
  let delay: number | null = Number.isFinite(ms) && ms >= 0 ? ms : null;
  if (delay === null && value !== null) {
    const seconds = Number(value);
    if (value.trim() !== "" && Number.isFinite(seconds) && seconds >= 0) delay = seconds * 1000;
    else if (!Number.isNaN(Date.parse(value))) delay = Math.max(0, Date.parse(value) - nowMs);
  }
  return delay === null ? null : Math.min(delay, RETRY_AFTER_CAP_MS);
}

export type DataItem = { bytes: Uint8Array } | { url: string };

/** The `data[]` of a success body: base64 images decoded, URLs left for the caller to fetch. */
export function parseData(body: Uint8Array, maxItems: number): DataItem[] | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return "upstream answered with a body that is not JSON";
  }
  const data = (parsed as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length === 0) return "upstream answered without images";
  if (data.length > maxItems) {
    return `upstream answered ${data.length} images, more than ${maxItems}`;
  }
  const items: DataItem[] = [];
  for (const [i, item] of data.entries()) {
    const { b64_json: b64, url } = (item ?? {}) as { b64_json?: unknown; url?: unknown };
    if (typeof b64 === "string") items.push({ bytes: new Uint8Array(Buffer.from(b64, "base64")) });
    else if (typeof url === "string") items.push({ url });
    else return `upstream image ${i + 1} has neither b64_json nor url`;
  }
  return items;
}

/** An output file from upstream bytes, typed by their header rather than by what was asked. */
export function toOutputFile(bytes: Uint8Array): OutputFile | null {
  const sniffed = sniffImage(bytes);
  if (!sniffed || sniffed.format === "gif") return null;
  return { bytes, contentType: `image/${sniffed.format}`, ext: sniffed.format };
}
