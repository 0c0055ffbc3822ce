import { FORMAT_LABEL, type TextFormat } from "./formats.ts";

/**
 * Expected failures of this layer, as values. `untranslatable`: the request uses something
 * the target format cannot express (never dropped silently). `invalid_request`: the body is
 * inconsistent in a way its schema cannot see (a tool result naming no tool call).
 * `upstream_error`: an upstream answer that does not have its format's shape.
 */
export type FormatErrorCode = "untranslatable" | "invalid_request" | "upstream_error";

export interface FormatError {
  ok: false;
  code: FormatErrorCode;
  message: string;
}

export type Outcome<T> = { ok: true; value: T } | FormatError;

export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });

/** `<field> cannot be sent to a <format> upstream`, with a reason when one helps. */
export function refuse(field: string, target: TextFormat, why?: string): FormatError {
  const reason = why ? ` (${why})` : "";
  return {
    ok: false,
    code: "untranslatable",
    message: `${field} cannot be sent to a ${FORMAT_LABEL[target]} upstream${reason}`,
  };
}

export const invalid = (message: string): FormatError => ({
  ok: false,
  code: "invalid_request",
  message,
});

export const upstreamError = (message: string): FormatError => ({
  ok: false,
  code: "upstream_error",
  message,
});
