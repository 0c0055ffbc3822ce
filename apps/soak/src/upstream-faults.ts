import type { Random } from "@gw/random";

/** What the front does with one generating request instead of passing it on as is. */
export type UpstreamFault =
  | "pass"
  | "status429"
  | "status500"
  | "status503"
  | "timeout"
  | "reset"
  | "slow"
  | "cutStream";

export interface FaultFrontOptions {
  /** The provider this front stands for (openai, anthropic, gemini, mediaq). */
  name: string;
  /** Where a path goes: the stub origin serving it, or null for a 404. */
  route: (path: string) => string | null;
  random: Random;
  /** Probability that a generating request (a POST) is failed on purpose. */
  faultRate: number;
  /** The gateway's per-attempt upstream timeout; a "timeout" fault outlasts it. */
  upstreamTimeoutMs: number;
}

export interface FaultFront {
  name: string;
  origin: string;
  /** Requests by what the front did to them. */
  counts: Map<UpstreamFault | "stalled", number>;
  /** Holds every request arriving in the next `ms` until then: a stalled upstream. */
  stall(ms: number): void;
  stop(): Promise<void>;
}

/** Faults among the failed-on-purpose requests, by weight. */
const FAULT_WEIGHTS: Record<Exclude<UpstreamFault, "pass">, number> = {
  status429: 2,
  status500: 2,
  status503: 2,
  timeout: 1,
  reset: 2,
  slow: 4,
  cutStream: 3,
};

/** A connection closed after the request arrived, before any response byte. */
const dropped = (): Response =>
  new Response(new ReadableStream({ start: (controller) => controller.error() }));

function statusAnswer(status: number): Response {
  const body = { error: { message: `soak fault ${status}`, type: "server_error", code: null } };
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (status === 429 || status === 503) headers["retry-after"] = "1";
  return new Response(JSON.stringify(body), { status, headers });
}

/** An SSE body that passes `frames` chunks on, then breaks off. */
function cutAfter(body: ReadableStream<Uint8Array>, frames: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let passed = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (passed >= frames) {
        await Bun.sleep(20);
        void reader.cancel().catch(() => {});
        // No reason given: Bun prints an Error passed here, and a cut is routine in a soak.
        controller.error();
        return;
      }
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      passed++;
      controller.enqueue(value);
    },
    cancel() {
      void reader.cancel().catch(() => {});
    },
  });
}

/** Passes a request on to the stub and its answer back, cutting a stream when told to. */
async function forward(
  req: Request,
  body: Uint8Array | undefined,
  target: string,
  origin: string,
  cutAfterFrames: number | null,
): Promise<{ response: Response; stream: boolean }> {
  const url = new URL(req.url);
  const headers = new Headers(req.headers);
  headers.delete("host");
  headers.delete("content-length");
  const answer = await fetch(`${target}${url.pathname}${url.search}`, {
    method: req.method,
    headers,
    body,
    redirect: "manual",
  });
  const out = new Headers(answer.headers);
  for (const name of ["content-length", "content-encoding", "transfer-encoding"]) out.delete(name);
  const type = answer.headers.get("content-type") ?? "";
  const init = { status: answer.status, headers: out };
  if (type.includes("event-stream") && answer.body) {
    const stream = cutAfterFrames === null ? answer.body : cutAfter(answer.body, cutAfterFrames);
    return { response: new Response(stream, init), stream: true };
  }
  // Links in JSON answers (queue status, file URLs) come back through the front.
  if (type.includes("json"))
    return {
      response: new Response((await answer.text()).replaceAll(target, origin), init),
      stream: false,
    };
  return { response: new Response(await answer.arrayBuffer(), init), stream: false };
}

/**
 * A reverse proxy in front of a stub upstream that fails requests on a seeded schedule:
 * 429/500/503 answers, a timeout after the request was sent (no answer until well past
 * the gateway's timeout), a connection reset, a slow answer, a stream cut midway, and
 * stalls on demand. Only generating requests (POST) fail; polls and downloads pass, so a
 * queue-style task fails about as often as a direct one.
 */
export function startFaultFront(options: FaultFrontOptions): FaultFront {
  const counts = new Map<UpstreamFault | "stalled", number>();
  const count = (what: UpstreamFault | "stalled") => counts.set(what, (counts.get(what) ?? 0) + 1);
  let stalledUntil = 0;
  const decide = (): UpstreamFault =>
    options.random.chance(options.faultRate) ? options.random.weightedKey(FAULT_WEIGHTS) : "pass";

  const handle = async (req: Request): Promise<Response> => {
    const target = options.route(new URL(req.url).pathname);
    if (!target) return Response.json({ error: { message: "no route" } }, { status: 404 });
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.bytes();
    const waitMs = stalledUntil - Date.now();
    if (waitMs > 0) {
      count("stalled");
      await Bun.sleep(waitMs);
      if (req.signal.aborted) return dropped();
    }
    const fault = req.method === "POST" ? decide() : "pass";
    // A cut applies to streams only; it is counted once the answer shows it is one.
    if (fault !== "cutStream") count(fault);
    if (fault === "status429") return statusAnswer(429);
    if (fault === "status500") return statusAnswer(500);
    if (fault === "status503") return statusAnswer(503);
    if (fault === "reset") return dropped();
    if (fault === "timeout") {
      await Bun.sleep(options.upstreamTimeoutMs + 1_500);
      return dropped();
    }
    if (fault === "slow") await Bun.sleep(options.random.int(300, 2_500));
    const cut = fault === "cutStream" ? options.random.int(1, 3) : null;
    const { response, stream } = await forward(req, body, target, origin, cut);
    if (fault === "cutStream") count(stream ? "cutStream" : "pass");
    return response;
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    maxRequestBodySize: 512 * 1024 * 1024,
    fetch: handle,
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    name: options.name,
    origin,
    counts,
    stall(ms) {
      stalledUntil = Math.max(stalledUntil, Date.now() + ms);
    },
    stop: () => server.stop(true),
  };
}
