import type { Connection } from "./connection.ts";
import { fail, ok, type Result } from "./failure.ts";

/** The admin API answers in milliseconds; half a minute means something is wrong on the way. */
const REQUEST_TIMEOUT_MS = 30_000;

/** Admin answers are small; a bigger one is not the gateway talking. */
const MAX_ANSWER_BYTES = 10 * 1024 * 1024;

export interface AdminClient {
  /** One admin call; a 204 answers `undefined`. */
  call<T>(method: string, path: string, body?: unknown): Promise<Result<T>>;
}

interface ErrorShape {
  error?: { message?: unknown; code?: unknown };
}

/** Bun names network failures by code (ConnectionRefused, FailedToOpenSocket, ...). */
function networkReason(error: unknown): string {
  if (error instanceof DOMException && error.name === "TimeoutError")
    return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : (error as Error).message;
}

/**
 * An error answer as a failure. The gateway's own shape carries a code (an api older than
 * this CLI answers a route it lacks with its 404 "No endpoint GET /admin/..."); anything
 * else came from something in between.
 */
function refusal(response: Response, text: string): Result<never> {
  let parsed: ErrorShape | undefined;
  try {
    parsed = JSON.parse(text) as ErrorShape;
  } catch {}
  const message = parsed?.error?.message;
  const code = parsed?.error?.code;
  if (typeof message !== "string" || typeof code !== "string")
    return fail({
      code: "api_error",
      status: response.status,
      apiCode: "unexpected_answer",
      message: `The server answered ${response.status} ${response.statusText} without the gateway's error shape; is --url the gateway?`,
    });
  return fail({ code: "api_error", status: response.status, apiCode: code, message });
}

export function adminClient(connection: Connection): AdminClient {
  return {
    async call<T>(method: string, path: string, body?: unknown): Promise<Result<T>> {
      const headers: Record<string, string> = {
        authorization: `Bearer ${connection.token}`,
        accept: "application/json",
      };
      if (body !== undefined) headers["content-type"] = "application/json";
      let response: Response;
      let text: string;
      try {
        response = await fetch(`${connection.url}${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          // A redirect is reported, never followed: the token goes to the address given only.
          redirect: "manual",
        });
        const length = Number(response.headers.get("content-length") ?? 0);
        if (length > MAX_ANSWER_BYTES) throw new Error(`an answer of ${length} bytes`);
        text = await response.text();
      } catch (error) {
        return fail({
          code: "connection_failed",
          message: `Cannot reach the gateway at ${connection.url} (${networkReason(error)})`,
        });
      }
      if (!response.ok) return refusal(response, text);
      if (response.status === 204 || text === "") return ok(undefined as T);
      try {
        return ok(JSON.parse(text) as T);
      } catch {
        return refusal(response, text);
      }
    },
  };
}
