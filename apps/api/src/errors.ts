import { ERRORS, type ErrorCode, errorBody } from "@gw/schemas";

/**
 * An expected refusal on its way to the client. Services return codes as values;
 * routes throw this so the error plugin answers with the one error shape.
 */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function errorResponse(
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json(errorBody(code, message), {
    status: ERRORS[code].status,
    headers: { "content-type": "application/json", ...headers },
  });
}
