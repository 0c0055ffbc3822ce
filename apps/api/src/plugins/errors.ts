import { Elysia } from "elysia";
import { ApiError, errorResponse } from "../errors.ts";
import { noteRequest } from "../observe/request-context.ts";

interface ValidationIssue {
  path?: string;
  summary?: string;
  message?: string;
  schema?: { anyOf?: { const?: unknown }[] };
}

/** A choice of literals ("active" or "disabled"): Elysia would say "one of: 'string', 'string'". */
function allowedValues(issue: ValidationIssue): string | null {
  const options = issue.schema?.anyOf;
  if (!options?.length || !options.every((option) => option.const !== undefined)) return null;
  return `must be one of ${options.map((option) => JSON.stringify(option.const)).join(", ")}`;
}

/** Names the first offending field so a client can fix the request without guessing. */
function describeValidation(error: unknown): string {
  const details = error as { type?: string; all?: ValidationIssue[] };
  const first = details.all?.[0];
  const where = details.type ?? "request";
  if (!first) return `Invalid ${where}`;
  const field = first.path ? first.path.replace(/^\//, "").replaceAll("/", ".") : "";
  const what = allowedValues(first) ?? first.summary ?? first.message ?? "is invalid";
  return field ? `Invalid ${where} field '${field}': ${what}` : `Invalid ${where}: ${what}`;
}

/**
 * Turns every failure into the one error shape. Unknown failures answer 500 and reach
 * the request's access line (message and cause, never headers or bodies, which may
 * carry keys).
 */
export const errorPlugin = new Elysia({ name: "gw/errors" }).onError(
  { as: "global" },
  ({ code, error, request }) => {
    // Elysia wraps what a parser throws in its own PARSE error; the refusal is the cause.
    const cause = (error as { cause?: unknown }).cause;
    if (error instanceof ApiError) return errorResponse(error.code, error.message, error.headers);
    if (cause instanceof ApiError) return errorResponse(cause.code, cause.message, cause.headers);
    switch (code) {
      case "VALIDATION":
        return errorResponse("invalid_request", describeValidation(error));
      case "PARSE":
        // The body plugin refuses bad bodies with ApiErrors (above); any other cause is a
        // failure behind it (Postgres or Redis during the credential check), not the body.
        if (cause instanceof Error && !(cause instanceof SyntaxError)) {
          noteRequest({ error: cause });
          return errorResponse("internal_error", "Internal error; the request may be retried");
        }
        return errorResponse(
          "invalid_request",
          "The request body could not be parsed; send valid JSON with Content-Type: application/json",
        );
      case "NOT_FOUND":
        return errorResponse(
          "not_found",
          `No endpoint ${request.method} ${new URL(request.url).pathname}`,
        );
      case "INVALID_COOKIE_SIGNATURE":
      case "INVALID_FILE_TYPE":
        return errorResponse("invalid_request", "Invalid request");
      default:
        // The access line of this request carries the failure and its cause.
        noteRequest({ error });
        return errorResponse("internal_error", "Internal error; the request may be retried");
    }
  },
);
