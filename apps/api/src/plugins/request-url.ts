import { Elysia } from "elysia";
import { ApiError } from "../errors.ts";

/**
 * Refuses a request Bun could not give an absolute URL: HTTP/1.0 or HTTP/1.1 without a
 * Host header, or with an empty one, arrives with `request.url` as a bare path, and every
 * `new URL(request.url)` after it would throw. Runs first, before routing.
 */
export const requestUrlPlugin = new Elysia({ name: "gw/request-url" }).onRequest(({ request }) => {
  if (!request.url.startsWith("http://") && !request.url.startsWith("https://"))
    throw new ApiError("invalid_request", "The request has no Host header; send Host: <server>");
});
