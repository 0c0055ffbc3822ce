import type { TextFormat } from "@gw/textformats";

/** One text generation call, already in a format the provider speaks natively. */
export interface TextCall {
  format: TextFormat;
  /** The provider's own model name; the adapter puts it where the API wants it. */
  upstreamModel: string;
  /** The request body in `format`; its model field (if any) is set by the adapter. */
  body: Record<string, unknown>;
  stream: boolean;
  /** Aborting it (a client that went away) cancels the upstream request. */
  signal: AbortSignal;
  /** The gateway's own count of the request's input, which the offline provider reports. */
  localInputTokens?: number;
}

export type TextFailureCode =
  | "upstream_error"
  | "upstream_unavailable"
  | "upstream_timeout"
  | "upstream_rejected";

export interface TextFailure {
  ok: false;
  code: TextFailureCode;
  /** The upstream's HTTP status, when it answered one. */
  status?: number;
  /** Bounded, one line, never containing the upstream key. */
  message: string;
  /** The upstream's own error body, only for a 4xx the client's request caused. */
  body?: unknown;
  /** Generation may have begun upstream: the call must not be retried anywhere. */
  started: boolean;
}

/**
 * The upstream's answer: its JSON body, or its raw SSE bytes passed through as they
 * arrive (the caller parses or relays them), or an expected failure as a value.
 */
export type TextAnswer =
  | { ok: true; status: number; json: unknown }
  | { ok: true; status: number; sse: ReadableStream<Uint8Array> }
  | TextFailure;

/** Runs text calls upstream. Expected failures are answers; `call` throws only on bugs. */
export interface TextProvider {
  readonly name: string;
  /** The formats it takes natively; a call in another format must be translated first. */
  readonly formats: readonly TextFormat[];
  call(call: TextCall): Promise<TextAnswer>;
}
