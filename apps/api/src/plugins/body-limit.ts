import { Elysia } from "elysia";
import { ApiError } from "../errors.ts";

/**
 * The server's own cap stays above every limit of this plugin (the JSON limit and the
 * multipart edits), so the plugin answers first, in the error shape.
 */
export function serverBodyCap(maxJsonBodyBytes: number, largestBodyBytes = 0): number {
  return Math.max(maxJsonBodyBytes, largestBodyBytes) * 2;
}

async function readLimited(request: Request, maxBytes: number): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new ApiError("payload_too_large", `The request body exceeds ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The path of a request URL without parsing the whole URL. */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const query = url.indexOf("?", start);
  return start < 0 ? "/" : url.slice(start, query < 0 ? undefined : query);
}

/**
 * Refuses bodies larger than the limit: at once when the declared length says so, and
 * while reading a JSON body that declared none (chunked), so no oversized body is parsed.
 * `perPath` sets limits for single endpoints: a JSON body is never allowed more than
 * `maxBytes` (the quote's 1 MiB of spec 8 lowers it), while other bodies of that path
 * (multipart edits with 20 MB images) get the path's own limit.
 */
export function bodyLimitPlugin(maxBytes: number, perPath: Record<string, number> = {}) {
  const limits = new Map(Object.entries(perPath));
  const limitOf = (url: string, json = true) => {
    const own = limits.size === 0 ? undefined : limits.get(pathOf(url));
    if (own === undefined) return maxBytes;
    return json ? Math.min(maxBytes, own) : own;
  };
  return new Elysia({ name: "gw/body-limit", seed: maxBytes })
    .onRequest(({ request }) => {
      const length = request.headers.get("content-length");
      const type = request.headers.get("content-type") ?? "";
      const limit = limitOf(request.url, !type.startsWith("multipart/form-data"));
      if (length !== null && Number(length) > limit) {
        throw new ApiError("payload_too_large", `The request body exceeds ${limit} bytes`);
      }
    })
    .onParse({ as: "global" }, async ({ request, contentType }) => {
      if (!contentType.startsWith("application/json")) return;
      const text = await readLimited(request, limitOf(request.url));
      try {
        return text === "" ? undefined : JSON.parse(text);
      } catch {
        throw new ApiError("invalid_request", "The request body is not valid JSON");
      }
    });
}
