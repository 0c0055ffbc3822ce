import { cors } from "@elysiajs/cors";

/** Headers a browser client may read from an answer (issue 14, spec 4.11). */
export const EXPOSED_HEADERS = [
  "X-Task-Id",
  "x-request-id",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "Retry-After",
  "X-Service-Provider-Prompt-Tokens",
];

/**
 * CORS for browser clients. Any origin by default, never with credentials: keys are
 * bearer tokens, not cookies (as with OpenAI's API), so a page can only spend a key it
 * holds. CORS_ORIGINS narrows the origins. Preflights answer 204 with the methods and
 * the request's headers allowed (so Authorization, x-api-key and Idempotency-Key pass).
 */
export function corsPlugin(origins: "*" | string[]) {
  return cors({
    origin: origins === "*" ? "*" : origins,
    methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    allowedHeaders: true,
    exposeHeaders: EXPOSED_HEADERS,
    credentials: false,
    maxAge: 600,
    preflight: true,
  });
}
