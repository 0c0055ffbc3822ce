import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";

/** Calls Bun's own fetch carries at once before the pool takes the rest. */
const NATIVE_IN_FLIGHT = 192;

/**
 * A `fetch` for upstream calls that can hold thousands in flight. Bun's own fetch runs
 * at most 256 requests at once per process unless BUN_CONFIG_MAX_HTTP_REQUESTS is set
 * before the process starts, which caps a worker far below what a slow upstream needs
 * (1,000 image calls of 2 s need 1,000 at once). Calls go through Bun's fetch (the
 * cheapest per call) while fewer than `NATIVE_IN_FLIGHT` are in flight there, and through
 * node:http(s) keep-alive agents of `maxSockets` per host beyond that.
 */
export function createPooledFetch({ maxSockets }: { maxSockets: number }): typeof fetch {
  const overflow = createNodeFetch(maxSockets);
  let native = 0;
  const pooled = async (input: string | URL | Request, init?: RequestInit) => {
    if (native >= NATIVE_IN_FLIGHT) return overflow(input, init);
    native++;
    try {
      const response = await fetch(input, init);
      // The body is read after this returns; the slot is freed with the response head.
      return response;
    } finally {
      native--;
    }
  };
  return pooled as typeof fetch;
}

/** fetch over node:http(s) agents with a keep-alive pool of `maxSockets` per host. */
function createNodeFetch(maxSockets: number): typeof fetch {
  const agents = {
    "http:": new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: 256 }),
    "https:": new https.Agent({ keepAlive: true, maxSockets, maxFreeSockets: 256 }),
  };
  const pooled = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request =
      typeof input === "string" || input instanceof URL
        ? new Request(String(input), init)
        : new Request(input, init);
    const url = new URL(request.url);
    const agent = agents[url.protocol as keyof typeof agents];
    if (!agent) throw new TypeError(`unsupported protocol ${url.protocol}`);
    request.signal.throwIfAborted();
    const headers = Object.fromEntries(request.headers);
    let body: Uint8Array | null = null;
    if (init?.body instanceof FormData) {
      // Encoded by a Response, which also gives the multipart boundary.
      const encoded = new Response(init.body);
      headers["content-type"] = encoded.headers.get("content-type") ?? "multipart/form-data";
      body = new Uint8Array(await encoded.arrayBuffer());
    } else if (request.body) {
      body = new Uint8Array(await request.arrayBuffer());
    }
    if (body) headers["content-length"] = String(body.byteLength);
    const send = url.protocol === "https:" ? https.request : http.request;
    return new Promise<Response>((resolve, reject) => {
      const outgoing = send(url, { method: request.method, headers, agent }, (incoming) => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(incoming.headers))
          for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value])
            responseHeaders.append(name, item);
        const status = incoming.statusCode ?? 502;
        const stream =
          status === 204 || status === 304 || request.method === "HEAD"
            ? null
            : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>);
        resolve(new Response(stream, { status, headers: responseHeaders }));
      });
      const abort = () => outgoing.destroy(request.signal.reason ?? new Error("aborted"));
      request.signal.addEventListener("abort", abort, { once: true });
      outgoing.on("error", reject);
      outgoing.on("close", () => request.signal.removeEventListener("abort", abort));
      outgoing.end(body ?? undefined);
    });
  };
  return pooled as typeof fetch;
}
