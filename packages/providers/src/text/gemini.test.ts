// Proves the Gemini generateContent provider against the hand-written stub: the model in
// the path, x-goog-api-key, :streamGenerateContent?alt=sse with CRLF frames passed through,
// usageMetadata with cached tokens, Gemini's 400 API_KEY_INVALID read as our configuration
// (not the client's fault), other 400s rejected, and retries only where nothing started.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { createStreamParser, readResult, type StreamEvent } from "@gw/textformats";
import { readSseText, startGeminiStub } from "../testing/index.ts";
import { createGeminiTextProvider } from "./gemini.ts";
import type { HttpTextProviderOptions } from "./http-call.ts";
import type { TextAnswer, TextCall } from "./types.ts";

const stub = startGeminiStub({
  usage: { promptTokenCount: 1200, candidatesTokenCount: 8, cachedContentTokenCount: 1000 },
});
afterAll(() => stub.stop());
beforeEach(() => {
  stub.requests.length = 0;
});

const provider = (overrides: Partial<HttpTextProviderOptions> = {}) =>
  createGeminiTextProvider({
    baseUrl: stub.url,
    apiKey: stub.apiKey,
    retryBaseMs: 5,
    ...overrides,
  });

const call = (overrides: Partial<TextCall> = {}): TextCall => ({
  format: "generateContent",
  upstreamModel: "models/gemini-up-1",
  body: {
    contents: [{ role: "user", parts: [{ text: "Say hello." }] }],
    generationConfig: { maxOutputTokens: 50, temperature: 0.3 },
  },
  stream: false,
  signal: new AbortController().signal,
  ...overrides,
});

const sseOf = (answer: TextAnswer) => (answer as { sse: ReadableStream<Uint8Array> }).sse;

function parse(text: string): StreamEvent[] {
  const parser = createStreamParser("generateContent");
  return [...parser.push(text), ...parser.end()];
}

const USAGE = { inputTokens: 200, outputTokens: 8, cacheReadTokens: 1000, cacheWriteTokens: 0 };

describe("generateContent", () => {
  test("JSON: the model in the path, x-goog-api-key, the body as given", async () => {
    const answer = await provider().call(call());
    expect(answer).toMatchObject({ ok: true, status: 200 });
    const [request] = stub.requests;
    expect(request).toMatchObject({
      path: "/v1beta/models/gemini-up-1:generateContent",
      query: {},
      authorized: true,
    });
    expect(request!.headers["x-goog-api-key"]).toBe("[redacted]");
    expect(request!.json).toEqual(call().body);
    const read = readResult("generateContent", (answer as { json: unknown }).json);
    expect(read.ok && read.value.usage).toEqual(USAGE);
  });

  test("SSE: :streamGenerateContent?alt=sse, CRLF frames passed through", async () => {
    const answer = await provider().call(call({ stream: true }));
    expect(stub.requests[0]).toMatchObject({
      path: "/v1beta/models/gemini-up-1:streamGenerateContent",
      query: { alt: "sse" },
    });
    const text = await readSseText(sseOf(answer));
    expect(text.split("\r\n\r\n").filter(Boolean)).toHaveLength(3);
    const events = parse(text);
    const said = events.flatMap((event) => (event.type === "text" ? [event.text] : [])).join("");
    expect(said).toBe("Hello from the stub.");
    expect(events.findLast((event) => event.type === "usage")).toEqual({
      type: "usage",
      usage: USAGE,
    });
    expect(events.some((event) => event.type === "error")).toBe(false);
  });
});

describe("errors and retries", () => {
  test("a wrong key (Gemini's 400 API_KEY_INVALID) is upstream_unavailable, not the client's fault", async () => {
    const apiKey = "AIza-wrong-0123456789";
    const answer = await provider({ apiKey }).call(call());
    expect(answer).toMatchObject({ code: "upstream_unavailable", status: 400, started: false });
    expect((answer as { body?: unknown }).body).toBeUndefined();
    expect(JSON.stringify(answer)).not.toContain(apiKey);
  });

  test("a request without contents is upstream_rejected with Google's error body", async () => {
    const answer = await provider().call(call({ body: {} }));
    expect(answer).toMatchObject({
      code: "upstream_rejected",
      status: 400,
      body: { error: { code: 400, status: "INVALID_ARGUMENT" } },
      started: false,
    });
    expect((answer as { message: string }).message).toContain("contents is not specified");
  });

  test("503s are retried: N requests after N 503s", async () => {
    stub.script([{ status: 503 }, { status: 503 }]);
    const answer = await provider({ maxAttempts: 2 }).call(call());
    expect(answer).toMatchObject({ code: "upstream_unavailable", status: 503, started: false });
    expect(stub.requests).toHaveLength(2);
  });

  test("a timeout after the request was sent is 1 request, never retried", async () => {
    stub.script({ hang: true });
    const answer = await provider({ timeoutMs: 50 }).call(call({ stream: true }));
    expect(answer).toMatchObject({ code: "upstream_timeout", started: true });
    stub.release();
    await Bun.sleep(50);
    expect(stub.requests).toHaveLength(1);
  });

  test("a connection dropped before any answer byte is 1 request, upstream_error", async () => {
    stub.script({ dropConnection: true });
    const answer = await provider().call(call());
    expect(answer).toMatchObject({ code: "upstream_error", started: true });
    expect(stub.requests).toHaveLength(1);
  });
});
