import { randomUUID } from "node:crypto";
import {
  CONTENT_TYPES,
  digestOf,
  encodeImage,
  type OutputFormat,
  pictureLine,
} from "../image/render.ts";

/** What the stub does with the next API request (generations or edits), instead of answering normally. */
export type Behaviour =
  | { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number }
  | { delayMs: number }
  | { hang: true }
  | { gate: Promise<void> }
  | { dropConnection: true }
  | { breakBody: true };

export interface RecordedRequest {
  method: string;
  path: string;
  /** Request headers; `authorization` is replaced by "[redacted]" when present. */
  headers: Record<string, string>;
  authorized: boolean;
  json?: Record<string, unknown>;
  multipart?: {
    fields: Record<string, string>;
    files: { name: string; filename: string; size: number; type: string }[];
  };
  /** Date.now() at arrival. */
  atMs: number;
  /** The scripted behaviour that answered, by its kind ("status 429", "hang", ...). */
  behaviour?: string;
}

export interface OpenAIImagesStubOptions {
  /** The only key accepted. Default "sk-stub-key". */
  apiKey?: string;
  /** Answer every image with one small cached PNG, whatever the size asked. Default false. */
  fast?: boolean;
  /** Latency of every normal answer, to model a real upstream in benchmarks. Default 0. */
  latencyMs?: number;
  /** Requests kept in `requests` (oldest dropped first). Default 10 000. */
  maxRecorded?: number;
  /** URL results kept for download (oldest dropped first). Default 1000. */
  maxFiles?: number;
}

export interface OpenAIImagesStub {
  /** Base URL including /v1, for `createOpenAIImagesProvider({ baseUrl })`. */
  url: string;
  apiKey: string;
  requests: RecordedRequest[];
  /** Queues behaviours for the next API requests, in order; unscripted requests answer normally. */
  script(next: Behaviour | Behaviour[]): void;
  /** Lets every hung request answer normally. */
  release(): void;
  /** Drops hung requests and closes every connection. */
  stop(): Promise<void>;
}

const SMALL_SIDE = 64;
const MAX_N = 10;
const MAX_SIDE = 4096;
const MAX_BODY_BYTES = 64 * 1024 * 1024;

interface ImageRequest {
  prompt: string;
  n: number;
  size: { width: number; height: number } | undefined;
  format: OutputFormat;
  responseFormat: "b64_json" | "url";
}

class StubError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null = null,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

function errorResponse(
  status: number,
  message: string,
  code: string | null,
  param: string | null = null,
): Response {
  const type =
    status === 401
      ? "invalid_request_error"
      : status >= 500
        ? "server_error"
        : "invalid_request_error";
  return Response.json({ error: { message, type, param, code } }, { status });
}

/** A connection closed before any response byte (erroring the body stream before its first chunk). */
function droppedConnection(): Response {
  return new Response(new ReadableStream({ start: (controller) => controller.error() }));
}

/** 200 and the start of a JSON body, then the connection breaks off. */
function brokenBody(): Response {
  let sent = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(new TextEncoder().encode('{"created":1,"data":[{"b64_json":"iVBOR'));
        return;
      }
      await Bun.sleep(20);
      controller.error();
    },
  });
  return new Response(stream, { headers: { "content-type": "application/json" } });
}

function describe(behaviour: Behaviour): string {
  if ("status" in behaviour) return `status ${behaviour.status}`;
  if ("hang" in behaviour) return "hang";
  if ("gate" in behaviour) return "gate";
  if ("dropConnection" in behaviour) return "dropConnection";
  if ("breakBody" in behaviour) return "breakBody";
  return "delay";
}

function parseSize(value: unknown): { width: number; height: number } | undefined {
  if (value === undefined || value === "auto") return undefined;
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(String(value));
  const [width, height] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
  if (width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE) {
    throw new StubError(400, `Invalid size '${String(value)}'.`, "invalid_value", "size");
  }
  return { width, height };
}

function parseImageRequest(fields: Record<string, unknown>): ImageRequest {
  for (const name of ["model", "prompt"]) {
    if (typeof fields[name] !== "string" || (fields[name] as string).trim() === "") {
      throw new StubError(
        400,
        `Missing required parameter: '${name}'.`,
        "missing_required_parameter",
        name,
      );
    }
  }
  const n = fields.n === undefined ? 1 : Number(fields.n);
  if (!Number.isInteger(n) || n < 1 || n > MAX_N) {
    throw new StubError(400, `'n' must be an integer from 1 to ${MAX_N}.`, "invalid_value", "n");
  }
  const format = (fields.output_format ?? "png") as OutputFormat;
  if (!(format in CONTENT_TYPES)) {
    throw new StubError(
      400,
      `Invalid output_format '${String(format)}'.`,
      "invalid_value",
      "output_format",
    );
  }
  const responseFormat = fields.response_format ?? "b64_json";
  if (responseFormat !== "b64_json" && responseFormat !== "url") {
    const message = `Invalid response_format '${String(responseFormat)}'.`;
    throw new StubError(400, message, "invalid_value", "response_format");
  }
  const size = parseSize(fields.size);
  return { prompt: String(fields.prompt), n, size, format, responseFormat };
}

async function readJsonBody(req: Request, entry: RecordedRequest): Promise<ImageRequest> {
  let json: unknown;
  try {
    json = await req.json();
  } catch {
    throw new StubError(400, "We could not parse the JSON body of your request.", "invalid_json");
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new StubError(400, "The body must be a JSON object.", "invalid_json");
  }
  entry.json = json as Record<string, unknown>;
  return parseImageRequest(entry.json);
}

async function readMultipartBody(req: Request, entry: RecordedRequest): Promise<ImageRequest> {
  let form: Awaited<ReturnType<Request["formData"]>>;
  try {
    form = await req.formData();
  } catch {
    throw new StubError(400, "The body must be multipart/form-data.", "invalid_multipart");
  }
  const multipart: NonNullable<RecordedRequest["multipart"]> = { fields: {}, files: [] };
  for (const [name, value] of form.entries()) {
    if (typeof value === "string") multipart.fields[name] = value;
    else multipart.files.push({ name, filename: value.name, size: value.size, type: value.type });
  }
  entry.multipart = multipart;
  if (!multipart.files.some((file) => file.name === "image" || file.name === "image[]")) {
    throw new StubError(
      400,
      "Missing required parameter: 'image'.",
      "missing_required_parameter",
      "image",
    );
  }
  return parseImageRequest(multipart.fields);
}

async function scriptedStatus(
  behaviour: Extract<Behaviour, { status: number }>,
): Promise<Response> {
  if (behaviour.delayMs) await Bun.sleep(behaviour.delayMs);
  const message = `scripted ${behaviour.status}`;
  const body = behaviour.body ?? {
    error: { message, type: "server_error", param: null, code: null },
  };
  return new Response(typeof body === "string" ? body : JSON.stringify(body), {
    status: behaviour.status,
    headers: { "content-type": "application/json", ...behaviour.headers },
  });
}

class StubServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: Behaviour[] = [];
  private readonly files = new Map<string, { bytes: Uint8Array; type: string }>();
  private readonly hung = new Set<(answer: "normal" | "drop") => void>();
  private readonly smallBase64 = new Map<OutputFormat, string>();
  private readonly server: ReturnType<typeof Bun.serve>;
  readonly origin: string;

  constructor(
    readonly apiKey: string,
    private readonly options: OpenAIImagesStubOptions,
  ) {
    this.server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      // Hung and gated requests must outlive Bun's default 10 s idle timeout.
      idleTimeout: 0,
      maxRequestBodySize: MAX_BODY_BYTES,
      fetch: (req) => this.handle(req),
    });
    this.origin = `http://127.0.0.1:${this.server.port}`;
  }

  script(next: Behaviour | Behaviour[]): void {
    this.queue.push(...(Array.isArray(next) ? next : [next]));
  }

  release(): void {
    for (const resolve of this.hung) resolve("normal");
    this.hung.clear();
  }

  async stop(): Promise<void> {
    for (const resolve of this.hung) resolve("drop");
    this.hung.clear();
    await this.server.stop(true);
  }

  private record(req: Request, path: string): RecordedRequest {
    const headers = Object.fromEntries(req.headers);
    const authorized = headers.authorization === `Bearer ${this.apiKey}`;
    if (headers.authorization !== undefined) headers.authorization = "[redacted]";
    const entry: RecordedRequest = {
      method: req.method,
      path,
      headers,
      authorized,
      atMs: Date.now(),
    };
    this.requests.push(entry);
    if (this.requests.length > (this.options.maxRecorded ?? 10_000)) this.requests.shift();
    return entry;
  }

  private async handle(req: Request): Promise<Response> {
    const path = new URL(req.url).pathname;
    const entry = this.record(req, path);
    if (req.method === "GET" && path.startsWith("/files/")) {
      const file = this.files.get(path.slice("/files/".length));
      if (!file) return errorResponse(404, "No such file.", "not_found");
      return new Response(file.bytes, { headers: { "content-type": file.type } });
    }
    const isGenerations = path === "/v1/images/generations";
    if (req.method !== "POST" || (!isGenerations && path !== "/v1/images/edits")) {
      return errorResponse(404, `Invalid URL (${req.method} ${path})`, null);
    }
    if (!entry.authorized) {
      const message =
        "Incorrect API key provided. You can find your API key in your account settings.";
      return errorResponse(401, message, "invalid_api_key");
    }
    const behaviour = this.queue.shift();
    if (behaviour) entry.behaviour = describe(behaviour);
    try {
      const request = await (isGenerations
        ? readJsonBody(req, entry)
        : readMultipartBody(req, entry));
      const normal = () => this.answer(request);
      return behaviour ? await this.scripted(behaviour, normal) : await normal();
    } catch (error) {
      if (!(error instanceof StubError)) throw error;
      return errorResponse(error.status, error.message, error.code, error.param);
    }
  }

  private async scripted(behaviour: Behaviour, normal: () => Promise<Response>): Promise<Response> {
    if ("status" in behaviour) return scriptedStatus(behaviour);
    if ("hang" in behaviour) {
      const outcome = await new Promise<"normal" | "drop">((resolve) => this.hung.add(resolve));
      return outcome === "drop" ? droppedConnection() : normal();
    }
    if ("gate" in behaviour) {
      await behaviour.gate;
      return normal();
    }
    if ("dropConnection" in behaviour) return droppedConnection();
    if ("breakBody" in behaviour) return brokenBody();
    await Bun.sleep(behaviour.delayMs);
    return normal();
  }

  private async answer(request: ImageRequest): Promise<Response> {
    if (this.options.latencyMs) await Bun.sleep(this.options.latencyMs);
    const data: ({ b64_json: string } | { url: string })[] = [];
    for (let i = 0; i < request.n; i++) {
      if (request.responseFormat === "b64_json") {
        data.push({ b64_json: await this.base64Of(request, i) });
        continue;
      }
      const id = `${randomUUID()}.${request.format}`;
      this.files.set(id, {
        bytes: await this.imageBytes(request, i),
        type: CONTENT_TYPES[request.format],
      });
      if (this.files.size > (this.options.maxFiles ?? 1000)) {
        this.files.delete(this.files.keys().next().value!);
      }
      data.push({ url: `${this.origin}/files/${id}` });
    }
    return Response.json({ created: Math.floor(Date.now() / 1000), data });
  }

  /** Real pixels of the asked size, or the small default when no size was asked (or `fast`). */
  private small(request: ImageRequest): boolean {
    return request.size === undefined || this.options.fast === true;
  }

  private imageBytes(request: ImageRequest, index: number): Promise<Uint8Array> {
    if (this.small(request)) {
      return encodeImage(pictureLine(digestOf("stub"), SMALL_SIDE, SMALL_SIDE), request.format);
    }
    const { width, height } = request.size!;
    return encodeImage(
      pictureLine(digestOf("stub", request.prompt, index), width, height),
      request.format,
    );
  }

  private async base64Of(request: ImageRequest, index: number): Promise<string> {
    if (!this.small(request)) {
      return Buffer.from(await this.imageBytes(request, index)).toString("base64");
    }
    let cached = this.smallBase64.get(request.format);
    if (!cached) {
      cached = Buffer.from(await this.imageBytes(request, index)).toString("base64");
      this.smallBase64.set(request.format, cached);
    }
    return cached;
  }
}

/**
 * A local stand-in for the OpenAI Images API on 127.0.0.1 (random port): bearer auth, the
 * required fields, generations (JSON) and edits (multipart), `n` and `response_format`
 * honoured, URL results served from its own `/files/...`, real images from the offline
 * provider's renderer. Tests script failures per request; benchmarks use `fast` and `latencyMs`.
 */
export async function startOpenAIImagesStub(
  options: OpenAIImagesStubOptions = {},
): Promise<OpenAIImagesStub> {
  const stub = new StubServer(options.apiKey ?? "sk-stub-key", options);
  return {
    url: `${stub.origin}/v1`,
    apiKey: stub.apiKey,
    requests: stub.requests,
    script: (next) => stub.script(next),
    release: () => stub.release(),
    stop: () => stub.stop(),
  };
}
