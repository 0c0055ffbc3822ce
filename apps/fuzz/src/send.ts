import type { WireRequest } from "./draft.ts";

export interface Outcome {
  /** The answer's status; null when none came (timeout, reset). */
  status: number | null;
  /** Why no answer came, or why the client could not send the case at all. */
  error: string | null;
  /** The HTTP client refused to build the request (not the server's doing): skipped. */
  unsendable: boolean;
  contentType: string | null;
  /** The answer's body as text, at most READ_LIMIT_BYTES of it. */
  body: string;
  headers: Headers | null;
  ms: number;
}

/** Enough of any answer to check its shape and look for leaks; the rest is drained unread. */
const READ_LIMIT_BYTES = 4 * 1024 * 1024;

async function readBounded(response: Response, signal: AbortSignal): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    if (signal.aborted) throw new Error("timeout while reading the body");
    const { done, value } = await reader.read();
    if (done) break;
    if (total < READ_LIMIT_BYTES) chunks.push(value);
    total += value.length;
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/**
 * Sends one case and waits for the whole answer, body included, at most `timeoutMs`:
 * an answer that has not ended by then is a hang, whatever its status line said.
 */
export async function send(
  baseUrl: string,
  wire: WireRequest,
  timeoutMs: number,
): Promise<Outcome> {
  const started = performance.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const outcome = (fields: Partial<Outcome>): Outcome => ({
    status: null,
    error: null,
    unsendable: false,
    contentType: null,
    body: "",
    headers: null,
    ms: Math.round(performance.now() - started),
    ...fields,
  });
  let request: Request;
  try {
    request = new Request(`${baseUrl}${wire.target}`, {
      method: wire.method,
      headers: wire.headers,
      body: wire.body,
      signal: controller.signal,
    });
  } catch (error) {
    clearTimeout(timer);
    return outcome({ unsendable: true, error: (error as Error).message });
  }
  try {
    const response = await fetch(request, { decompress: false } as RequestInit);
    const body = await readBounded(response, controller.signal);
    return outcome({
      status: response.status,
      contentType: response.headers.get("content-type"),
      headers: response.headers,
      body,
    });
  } catch (error) {
    const message = controller.signal.aborted
      ? `no complete answer within ${timeoutMs} ms`
      : `${(error as Error).name}: ${(error as Error).message}`;
    return outcome({ error: message });
  } finally {
    clearTimeout(timer);
  }
}
