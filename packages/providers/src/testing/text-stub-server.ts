/** What a text stub does with the next API request, instead of answering normally. */
export type TextStubBehaviour =
  /** This status and body (the API's own error shape when no body is given). */
  | { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number }
  /** The normal answer, after a delay. */
  | { delayMs: number }
  /** No answer until `release()` (then normal), or dropped by `stop()`. */
  | { hang: true }
  /** The connection closes after the request arrived, before any response byte. */
  | { dropConnection: true }
  /** A streamed answer that breaks off after `afterFrames` SSE frames (default 2). */
  | { cutStream: true; afterFrames?: number };

export interface TextStubRequest {
  method: string;
  path: string;
  /** Query parameters; `key` (Gemini's key parameter) shown as "[redacted]". */
  query: Record<string, string>;
  /** Request headers; `authorization`, `x-api-key` and `x-goog-api-key` shown as "[redacted]". */
  headers: Record<string, string>;
  authorized: boolean;
  json?: Record<string, unknown>;
  /** Date.now() at arrival. */
  atMs: number;
  /** The scripted behaviour that answered ("status 503", "cutStream", ...). */
  behaviour?: string;
}

/** What the stub answers: text, then optionally one tool call. */
export interface TextStubAnswer {
  text: string;
  toolCall?: { id: string; name: string; arguments: string };
}

export interface TextStubOptions<U> {
  /** The only key accepted. Default "sk-stub-key". */
  apiKey?: string;
  /** Usage in the API's own terms; `null` answers without usage. */
  usage?: Partial<U> | null;
  answer?: Partial<TextStubAnswer>;
  /** Models that exist (others answer 404 as the API does). Default: any. */
  models?: string[];
  /** Wait before each normal answer. Default 0. */
  latencyMs?: number;
  /** Wait between the frames of a streamed answer. Default 0. */
  frameDelayMs?: number;
  /** Requests kept in `requests` (oldest dropped first). Default 10 000. */
  maxRecorded?: number;
}

export interface TextStub<U> {
  /** The base URL a provider is configured with (OpenAI's includes /v1, the others do not). */
  url: string;
  apiKey: string;
  requests: TextStubRequest[];
  /** Queues behaviours for the next API requests, in order; unscripted requests answer normally. */
  script(next: TextStubBehaviour | TextStubBehaviour[]): void;
  /** Replaces the usage reported (`null`: none). */
  setUsage(usage: Partial<U> | null): void;
  setAnswer(answer: Partial<TextStubAnswer>): void;
  /** Lets every hung request answer normally. */
  release(): void;
  /** Drops hung requests and closes every connection. */
  stop(): Promise<void>;
}

/** One answer being written: what a format's writer needs. */
export interface AnswerContext<U> {
  endpoint: string;
  model: string;
  request: Record<string, unknown>;
  answer: TextStubAnswer;
  usage: U | null;
  id: string;
  created: number;
}

/** One public API's shapes, which the shared server drives. */
export interface TextApi<U> {
  defaultUsage: U;
  /** The endpoint, model and stream choice a path names; null for an unknown path (404). */
  route(
    method: string,
    url: URL,
  ): { endpoint: string; model?: string; streamFromPath?: boolean; sse?: boolean } | null;
  authorized(headers: Headers, url: URL, apiKey: string): boolean;
  /** The API's answer to a bad or missing key. */
  unauthorized(headers: Headers, url: URL): Response;
  /** The API's 404: an unknown path, or (with `model`) a model that does not exist. */
  notFound(method: string, path: string, model?: string): Response;
  /** The API's own error body for a status scripted without one. */
  errorBody(status: number): unknown;
  /** A 400 (or 404 model) in the API's shape, or null when the request is acceptable. */
  invalid(endpoint: string, json: Record<string, unknown>, headers: Headers): Response | null;
  /** The model named by the request (body for OpenAI and Anthropic, path for Gemini). */
  modelOf(json: Record<string, unknown>, routed: string | undefined): string;
  json(context: AnswerContext<U>): unknown;
  /** The SSE frames, each a complete frame text ending in its blank line. */
  frames(context: AnswerContext<U>): string[];
  /** A JSON answer to a stream request without alt=sse (Gemini streams a JSON array then). */
  streamAsJson?(context: AnswerContext<U>): unknown;
  idPrefix: string;
}

const REDACTED_HEADERS = ["authorization", "x-api-key", "x-goog-api-key"];
const MAX_BODY_BYTES = 32 * 1024 * 1024;

function describe(behaviour: TextStubBehaviour): string {
  if ("status" in behaviour) return `status ${behaviour.status}`;
  if ("hang" in behaviour) return "hang";
  if ("dropConnection" in behaviour) return "dropConnection";
  if ("cutStream" in behaviour) return "cutStream";
  return "delay";
}

/** A connection closed before any response byte (the body errors before its first chunk). */
const droppedConnection = (): Response =>
  new Response(new ReadableStream({ start: (controller) => controller.error() }));

/** Words of `text` in `count` pieces (fewer for fewer words), spaces kept, as streams send them. */
export function textPieces(text: string, count = 3): string[] {
  if (text === "") return [];
  const words = text.split(" ");
  const pieces = Math.min(count, words.length);
  const out: string[] = [];
  for (let i = 0; i < pieces; i++) {
    const from = Math.floor((i * words.length) / pieces);
    const to = Math.floor(((i + 1) * words.length) / pieces);
    const piece = words.slice(from, to).join(" ");
    out.push(i === 0 ? piece : ` ${piece}`);
  }
  return out;
}

/** The shared server of the text stubs: recording, auth, scripted failures, pacing. */
export class TextStubServer<U> {
  readonly requests: TextStubRequest[] = [];
  private readonly queue: TextStubBehaviour[] = [];
  private readonly hung = new Set<(answer: "normal" | "drop") => void>();
  private readonly server: ReturnType<typeof Bun.serve>;
  readonly origin: string;
  readonly apiKey: string;
  private usage: U | null;
  private answer: TextStubAnswer;
  private count = 0;

  constructor(
    private readonly api: TextApi<U>,
    private readonly options: TextStubOptions<U>,
  ) {
    this.apiKey = options.apiKey ?? "sk-stub-key";
    this.usage = options.usage === null ? null : { ...api.defaultUsage, ...options.usage };
    this.answer = { text: "Hello from the stub.", ...options.answer };
    this.server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      // Hung requests and slow streams must outlive Bun's default 10 s idle timeout.
      idleTimeout: 0,
      maxRequestBodySize: MAX_BODY_BYTES,
      fetch: (req) => this.handle(req),
    });
    this.origin = `http://127.0.0.1:${this.server.port}`;
  }

  publicHandle(): TextStub<U> {
    return {
      url: this.origin,
      apiKey: this.apiKey,
      requests: this.requests,
      script: (next) => this.queue.push(...(Array.isArray(next) ? next : [next])),
      setUsage: (usage) => {
        this.usage = usage === null ? null : { ...this.api.defaultUsage, ...usage };
      },
      setAnswer: (answer) => {
        this.answer = { ...this.answer, ...answer };
      },
      release: () => {
        for (const resolve of this.hung) resolve("normal");
        this.hung.clear();
      },
      stop: async () => {
        for (const resolve of this.hung) resolve("drop");
        this.hung.clear();
        await this.server.stop(true);
      },
    };
  }

  private record(req: Request, url: URL): TextStubRequest {
    const headers = Object.fromEntries(req.headers);
    for (const name of REDACTED_HEADERS)
      if (headers[name] !== undefined) headers[name] = "[redacted]";
    const query = Object.fromEntries(url.searchParams);
    if (query.key !== undefined) query.key = "[redacted]";
    const entry: TextStubRequest = {
      method: req.method,
      path: url.pathname,
      query,
      headers,
      authorized: this.api.authorized(req.headers, url, this.apiKey),
      atMs: Date.now(),
    };
    this.requests.push(entry);
    if (this.requests.length > (this.options.maxRecorded ?? 10_000)) this.requests.shift();
    return entry;
  }

  private async handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const entry = this.record(req, url);
    const route = this.api.route(req.method, url);
    if (!route) return this.api.notFound(req.method, url.pathname);
    if (!entry.authorized) return this.api.unauthorized(req.headers, url);
    let json: unknown;
    try {
      json = await req.json();
    } catch {
      json = undefined;
    }
    if (typeof json !== "object" || json === null || Array.isArray(json))
      return (
        this.api.invalid(route.endpoint, {}, req.headers) ?? new Response(null, { status: 400 })
      );
    entry.json = json as Record<string, unknown>;
    const behaviour = this.queue.shift();
    if (behaviour) entry.behaviour = describe(behaviour);
    if (behaviour && "status" in behaviour) return this.scriptedStatus(behaviour);
    if (behaviour && "dropConnection" in behaviour) return droppedConnection();
    if (behaviour && "hang" in behaviour) {
      const outcome = await new Promise<"normal" | "drop">((resolve) => this.hung.add(resolve));
      if (outcome === "drop") return droppedConnection();
    }
    if (behaviour && "delayMs" in behaviour) await Bun.sleep(behaviour.delayMs);
    const invalid = this.api.invalid(route.endpoint, entry.json, req.headers);
    if (invalid) return invalid;
    const model = this.api.modelOf(entry.json, route.model);
    if (this.options.models && !this.options.models.includes(model))
      return this.api.notFound(req.method, url.pathname, model);
    if (this.options.latencyMs) await Bun.sleep(this.options.latencyMs);
    const context: AnswerContext<U> = {
      endpoint: route.endpoint,
      model,
      request: entry.json,
      answer: this.answer,
      usage: this.usage,
      id: `${this.api.idPrefix}${(++this.count).toString(36).padStart(6, "0")}`,
      created: Math.floor(Date.now() / 1000),
    };
    const stream = route.streamFromPath ?? entry.json.stream === true;
    if (!stream) return Response.json(this.api.json(context));
    if (route.sse === false && this.api.streamAsJson)
      return Response.json(this.api.streamAsJson(context));
    const cut = behaviour && "cutStream" in behaviour ? (behaviour.afterFrames ?? 2) : undefined;
    return this.sse(this.api.frames(context), cut);
  }

  private async scriptedStatus(
    behaviour: Extract<TextStubBehaviour, { status: number }>,
  ): Promise<Response> {
    if (behaviour.delayMs) await Bun.sleep(behaviour.delayMs);
    const body = behaviour.body ?? this.api.errorBody(behaviour.status);
    return new Response(typeof body === "string" ? body : JSON.stringify(body), {
      status: behaviour.status,
      headers: { "content-type": "application/json", ...behaviour.headers },
    });
  }

  /** Frames one per pull, paced by `frameDelayMs`; a cut stream errors after `cut` frames. */
  private sse(frames: string[], cut: number | undefined): Response {
    const encoder = new TextEncoder();
    const delayMs = this.options.frameDelayMs ?? 0;
    let next = 0;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (next > 0 && delayMs > 0) await Bun.sleep(delayMs);
        if (cut !== undefined && next >= cut) {
          // Give the sent frames time to leave before the connection breaks.
          await Bun.sleep(20);
          controller.error();
          return;
        }
        controller.enqueue(encoder.encode(frames[next++]));
        if (next === frames.length) controller.close();
      },
    });
    return new Response(stream, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
      },
    });
  }
}

/** Starts a stub of `api` and hands out its public handle. */
export function startTextStub<U>(api: TextApi<U>, options: TextStubOptions<U>): TextStub<U> {
  return new TextStubServer(api, options).publicHandle();
}
