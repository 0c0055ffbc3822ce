import { type Static, Type } from "@sinclair/typebox";

/**
 * Every error the gateway answers, with its HTTP status and OpenAI-style type. This is
 * the one place codes meet statuses; everything else returns or throws a code.
 */
export const ERRORS = {
  invalid_request: { status: 400, type: "invalid_request_error" },
  model_not_found: { status: 400, type: "invalid_request_error" },
  unsupported_operation: { status: 400, type: "invalid_request_error" },
  model_unavailable: { status: 400, type: "invalid_request_error" },
  untranslatable: { status: 400, type: "invalid_request_error" },
  invalid_api_key: { status: 401, type: "authentication_error" },
  key_disabled: { status: 401, type: "authentication_error" },
  key_expired: { status: 401, type: "authentication_error" },
  key_exhausted: { status: 401, type: "authentication_error" },
  key_deleted: { status: 401, type: "authentication_error" },
  account_disabled: { status: 401, type: "authentication_error" },
  invalid_admin_token: { status: 401, type: "authentication_error" },
  ip_not_allowed: { status: 403, type: "permission_error" },
  model_not_allowed: { status: 403, type: "permission_error" },
  content_policy_violation: { status: 400, type: "invalid_request_error" },
  source_image_unavailable: { status: 400, type: "invalid_request_error" },
  source_image_invalid: { status: 400, type: "invalid_request_error" },
  insufficient_funds: { status: 402, type: "insufficient_quota" },
  key_budget_exceeded: { status: 402, type: "insufficient_quota" },
  not_found: { status: 404, type: "not_found_error" },
  admin_disabled: { status: 404, type: "not_found_error" },
  conflict: { status: 409, type: "invalid_request_error" },
  idempotency_conflict: { status: 409, type: "invalid_request_error" },
  payload_too_large: { status: 413, type: "invalid_request_error" },
  unsupported_media_type: { status: 415, type: "invalid_request_error" },
  range_not_satisfiable: { status: 416, type: "invalid_request_error" },
  rate_limited: { status: 429, type: "rate_limit_error" },
  internal_error: { status: 500, type: "server_error" },
  upstream_error: { status: 502, type: "server_error" },
  upstream_unavailable: { status: 503, type: "service_unavailable_error" },
  upstream_timeout: { status: 504, type: "timeout_error" },
  task_expired: { status: 504, type: "timeout_error" },
  task_pending: { status: 504, type: "timeout_error" },
  endpoint_closed: { status: 503, type: "service_unavailable_error" },
  rate_limit_unavailable: { status: 503, type: "service_unavailable_error" },
} as const satisfies Record<string, { status: number; type: string }>;

export type ErrorCode = keyof typeof ERRORS;

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      message: Type.String({ description: "What went wrong, for a human." }),
      type: Type.String({ description: "OpenAI-style error class, e.g. invalid_request_error." }),
      code: Type.String({ description: "Stable snake_case code to branch on." }),
    }),
  },
  { description: "The one error shape of every endpoint." },
);
export type ErrorBody = Static<typeof ErrorBody>;

export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { error: { message, type: ERRORS[code].type, code } };
}
