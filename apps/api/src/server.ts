import type { ApiConfig } from "./config.ts";
import { errorResponse } from "./errors.ts";
import { EDIT_MAX_BODY_BYTES } from "./routes/images/multipart.ts";

/**
 * How main.ts listens (tests listen the same way). Bun's own cap on a body stays above
 * every route's limit (the JSON limit, the multipart edit), so the body plugin answers
 * first, in the error shape. `development: false` in every mode: Bun's development error
 * page shows stacks and file paths, and no client may ever see those. `error` is the
 * last resort for a failure outside Elysia's handlers, in the one error shape.
 */
export function listenOptions(config: Pick<ApiConfig, "port" | "maxJsonBodyBytes">) {
  return {
    port: config.port,
    maxRequestBodySize: Math.max(config.maxJsonBodyBytes, EDIT_MAX_BODY_BYTES) * 2,
    development: false,
    error(error: unknown): Response {
      console.error("[api] server error:", error instanceof Error ? error.message : error);
      return errorResponse("internal_error", "Internal error; the request may be retried");
    },
  };
}
