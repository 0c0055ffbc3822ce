import { t } from "elysia";

/**
 * OpenAPI declarations that several routes share and that no validating schema carries:
 * the ways a route takes a key (plugins/auth.ts; the schemes are named in docs/index.ts)
 * and the headers paid calls read or set outside their schemas.
 */

/** An OpenAPI security requirement: scheme names, each with its (here always empty) scopes. */
type SecurityRequirement = Record<string, string[]>;

/** `Authorization: Bearer` or `x-api-key` (AuthOptions.apiKeyHeader). */
export const BEARER_OR_API_KEY: SecurityRequirement[] = [{ bearer: [] }, { apiKey: [] }];

/** Also `x-goog-api-key` or `?key=`, as generate-content clients send it (AuthOptions.contentKey). */
export const ANY_KEY_STYLE: SecurityRequirement[] = [
  ...BEARER_OR_API_KEY,
  { googApiKey: [] },
  { googQueryKey: [] },
];

/** Read by idempotencyKeyOf (routes/paid-call.ts), which refuses a malformed one with a 400. */
export const IDEMPOTENCY_KEY_HEADER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  schema: t.String({ pattern: "^[\\x21-\\x7e]{1,255}$" }),
  description:
    "A repeated request with the same key and body answers with the same task, charged once; the same key with another body is a 409.",
};

/** Set on every answer that started or replayed a task. */
export const TASK_ID_HEADER = {
  "X-Task-Id": {
    description: "The task id, to look the task up if the connection drops.",
    schema: t.String(),
  },
};

/** A file's bytes in a response, described for OpenAPI (routes answer them as a raw Response). */
export const fileBytes = (description: string) => ({
  schema: t.String({ format: "binary", description }),
});
