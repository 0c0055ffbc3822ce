import type { Operation } from "./openapi.ts";
import { withRawTokens } from "./pools.ts";

/** One part of a multipart body, written as given (a mutation may break any of it). */
export interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  data: Uint8Array | string;
  /** Replaces the part's whole header block (without the blank line). */
  rawHeaders?: string;
}

export type DraftBody =
  | { kind: "json"; value: unknown }
  | { kind: "text"; text: string }
  | { kind: "bytes"; bytes: Uint8Array }
  | { kind: "multipart"; parts: Part[]; boundary: string; unterminated?: boolean }
  /** Sent chunked, without a Content-Length: `count` copies of `chunk`. */
  | { kind: "stream"; chunk: Uint8Array; count: number };

/** Who a case calls as. Keys of `a` that are refused share `a`'s data. */
export type Role =
  | "a"
  | "b"
  | "broke"
  | "victim"
  | "limited"
  | "disabled"
  | "expired"
  | "deleted"
  | "tinyBudget"
  | "ipBound"
  | "admin"
  | "none"
  | "forged";

/** A request under construction: plausible first, then changed by one mutation. */
export interface Draft {
  op: Operation;
  method: string;
  /** Path parameter values, already URL-encoded as they go on the wire. */
  pathParams: Record<string, string>;
  /** Replaces the templated path (routing mutations); query still appended. */
  rawPath?: string;
  query: [string, string][];
  /** Replaces the encoded query string (without `?`). */
  rawQuery?: string;
  headers: Record<string, string>;
  /** `undefined` leaves Content-Type to the body kind; `null` sends none. */
  contentType?: string | null;
  body: DraftBody | null;
  role: Role;
  /** What was done to the plausible request, e.g. `field:wrong-type:input.n`. */
  mutation: string;
  /** Why any 2xx answer would be wrong (a bad key, another account's task, a bomb), else null. */
  mustRefuse: string | null;
}

export interface WireRequest {
  method: string;
  /** Path and query, as sent. */
  target: string;
  headers: Record<string, string>;
  body?: Uint8Array | ReadableStream<Uint8Array>;
  /** Bytes in the body (for the report; a stream's total). */
  bodyBytes: number;
}

const encoder = new TextEncoder();

function multipartBytes(body: Extract<DraftBody, { kind: "multipart" }>): Uint8Array {
  const chunks: Uint8Array[] = [];
  for (const part of body.parts) {
    const headers =
      part.rawHeaders ??
      [
        `Content-Disposition: form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ""}`,
        ...(part.contentType ? [`Content-Type: ${part.contentType}`] : []),
      ].join("\r\n");
    chunks.push(encoder.encode(`--${body.boundary}\r\n${headers}\r\n\r\n`));
    chunks.push(typeof part.data === "string" ? encoder.encode(part.data) : part.data);
    chunks.push(encoder.encode("\r\n"));
  }
  if (!body.unterminated) chunks.push(encoder.encode(`--${body.boundary}--\r\n`));
  return Buffer.concat(chunks);
}

function defaultType(body: DraftBody): string {
  if (body.kind === "multipart") return `multipart/form-data; boundary=${body.boundary}`;
  return "application/json";
}

function streamOf(chunk: Uint8Array, count: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent++ >= count) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

/** The request a draft stands for, byte for byte. */
export function encodeDraft(draft: Draft): WireRequest {
  const path =
    draft.rawPath ??
    draft.op.path.replace(/\{([^}]+)\}/g, (_, name: string) => draft.pathParams[name] ?? "");
  const query =
    draft.rawQuery ??
    draft.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
  const headers = { ...draft.headers };
  let body: WireRequest["body"];
  let bodyBytes = 0;
  // fetch cannot send a body with these methods at all: such a case goes without one.
  if (draft.body && !["GET", "HEAD", "TRACE"].includes(draft.method)) {
    const type = draft.contentType === undefined ? defaultType(draft.body) : draft.contentType;
    if (type !== null) headers["content-type"] = type;
    switch (draft.body.kind) {
      case "json":
        body = encoder.encode(withRawTokens(JSON.stringify(draft.body.value) ?? "null"));
        break;
      case "text":
        body = encoder.encode(draft.body.text);
        break;
      case "bytes":
        body = draft.body.bytes;
        break;
      case "multipart":
        body = multipartBytes(draft.body);
        break;
      case "stream":
        body = streamOf(draft.body.chunk, draft.body.count);
        bodyBytes = draft.body.chunk.length * draft.body.count;
    }
    if (body instanceof Uint8Array) bodyBytes = body.length;
  }
  return {
    method: draft.method,
    target: query ? `${path}?${query}` : path,
    headers,
    body,
    bodyBytes,
  };
}

const hideSecrets = (text: string) => text.replace(/(sk-[A-Za-z0-9]{4})[A-Za-z0-9]+/g, "$1…");
const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max)}...(${text.length} chars)` : text;

/** The request in one line, secrets shortened, for a violation's report. */
export function describeRequest(wire: WireRequest): string {
  const headers = Object.entries(wire.headers)
    .map(([name, value]) => `${name}: ${clip(hideSecrets(value), 60)}`)
    .join(" | ");
  const body =
    wire.body instanceof Uint8Array
      ? ` body ${wire.bodyBytes} bytes: ${JSON.stringify(clip(new TextDecoder().decode(wire.body.subarray(0, 400)), 160))}`
      : wire.body
        ? ` body streamed, ${wire.bodyBytes} bytes`
        : "";
  return `${wire.method} ${clip(hideSecrets(wire.target), 160)} [${clip(headers, 400)}]${body}`;
}
