// Proves the OpenAI-compatible text provider over real HTTP against the hand-written stub:
// the wire request (path, bearer auth, model, stream and include_usage), JSON and SSE passed
// through as the upstream sent them, every error mapped to its code without the key, and
// retries only where nothing started (N requests after N 503s, exactly 1 after a timeout,
// a dropped connection or a 500), plus lanes, caller aborts and stream silence.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { createStreamParser, readResult, type StreamEvent } from "@gw/textformats";
import { readSseText, readSseUntilError, startOpenAITextStub } from "../testing/index.ts";
import type { HttpTextProviderOptions } from "./http-call.ts";
import { createOpenAITextProvider } from "./openai.ts";
import type { TextAnswer, TextCall } from "./types.ts";

const stub = startOpenAITextStub({
  usage: { prompt_tokens: 130, completion_tokens: 7, cached_tokens: 100 },
});
afterAll(() => stub.stop());
beforeEach(() => {
  stub.requests.length = 0;
  stub.setUsage({ prompt_tokens: 130, completion_tokens: 7, cached_tokens: 100 });
  stub.setAnswer({ text: "Hello from the stub.", toolCall: undefined });
});

const provider = (overrides: Partial<HttpTextProviderOptions> = {}) =>
  createOpenAITextProvider({
    baseUrl: stub.url,
    apiKey: stub.apiKey,
    retryBaseMs: 5,
    ...overrides,
  });

function chat(overrides: Partial<TextCall> = {}): TextCall {
  return {
    format: "chat",
    upstreamModel: "gpt-up-1",
    body: {
      model: "client-model",
      messages: [{ role: "user", content: "Say hello." }],
      temperature: 0.2,
      max_completion_tokens: 50,
      user: "end-user-7",
    },
    stream: false,
    signal: new AbortController().signal,
    ...overrides,
  };
}

const responsesCall = (overrides: Partial<TextCall> = {}): TextCall =>
  chat({
    format: "responses",
    body: { model: "client-model", input: "Say hello.", instructions: "Be brief." },
    ...overrides,
  });

function parse(format: TextCall["format"], text: string): StreamEvent[] {
  const parser = createStreamParser(format);
  return [...parser.push(text), ...parser.end()];
}

const textOf = (events: StreamEvent[]) =>
  events.flatMap((event) => (event.type === "text" ? [event.text] : [])).join("");
const lastUsage = (events: StreamEvent[]) => events.findLast((event) => event.type === "usage");

function expectNoKey(answer: TextAnswer) {
  expect(JSON.stringify(answer)).not.toContain(stub.apiKey);
}

describe("chat completions", () => {
  test("JSON: the wire request carries bearer auth, the upstream model and every client field", async () => {
    const call = chat();
    const answer = await provider().call(call);
    expect(answer).toMatchObject({ ok: true, status: 200 });
    const [request] = stub.requests;
    expect(request).toMatchObject({
      method: "POST",
      path: "/v1/chat/completions",
      authorized: true,
    });
    expect(request!.headers.authorization).toBe("[redacted]");
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.json).toEqual({ ...call.body, model: "gpt-up-1" });
    expect(call.body.model).toBe("client-model");
    const json = (answer as { json: Record<string, unknown> }).json;
    expect(json.object).toBe("chat.completion");
    expect(json.usage).toMatchObject({
      prompt_tokens: 130,
      prompt_tokens_details: { cached_tokens: 100 },
    });
    const read = readResult("chat", json);
    expect(read.ok && read.value.usage).toEqual({
      inputTokens: 30,
      outputTokens: 7,
      cacheReadTokens: 100,
      cacheWriteTokens: 0,
    });
  });

  test("SSE: the stream asks for usage and passes the upstream's bytes through", async () => {
    const call = chat({ stream: true, body: { ...chat().body, stream: true, stream_options: {} } });
    const answer = await provider().call(call);
    expect(answer.ok && "sse" in answer).toBe(true);
    const text = await readSseText((answer as { sse: ReadableStream<Uint8Array> }).sse);
    const [request] = stub.requests;
    expect(request!.json).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(request!.headers.accept).toBe("text/event-stream");
    expect(text.startsWith("data: {")).toBe(true);
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    const events = parse("chat", text);
    expect(textOf(events)).toBe("Hello from the stub.");
    expect(lastUsage(events)).toMatchObject({ usage: { inputTokens: 30, cacheReadTokens: 100 } });
    expect(events.some((event) => event.type === "error")).toBe(false);
  });

  test("a tool call answer passes through in JSON and SSE", async () => {
    stub.setAnswer({
      text: "",
      toolCall: { id: "call_9", name: "lookup", arguments: '{"q":"x"}' },
    });
    const json = await provider().call(chat());
    const read = readResult("chat", (json as { json: unknown }).json);
    expect(read.ok && read.value.parts).toEqual([
      { type: "tool_call", id: "call_9", name: "lookup", arguments: '{"q":"x"}' },
    ]);
    const streamed = await provider().call(chat({ stream: true }));
    const events = parse(
      "chat",
      await readSseText((streamed as { sse: ReadableStream<Uint8Array> }).sse),
    );
    expect(events).toContainEqual({
      type: "tool_call_start",
      index: 0,
      id: "call_9",
      name: "lookup",
    });
    expect(events).toContainEqual({ type: "finish", finish: { reason: "tool_calls" } });
  });
});

describe("responses", () => {
  test("JSON and SSE at /responses, with usage", async () => {
    const answer = await provider().call(responsesCall());
    expect(stub.requests[0]).toMatchObject({ path: "/v1/responses" });
    expect(stub.requests[0]!.json).toEqual({
      model: "gpt-up-1",
      input: "Say hello.",
      instructions: "Be brief.",
    });
    const read = readResult("responses", (answer as { json: unknown }).json);
    expect(read.ok && read.value.usage).toMatchObject({ inputTokens: 30, cacheReadTokens: 100 });
    const streamed = await provider().call(responsesCall({ stream: true }));
    expect(stub.requests[1]!.json).toMatchObject({ stream: true });
    expect(stub.requests[1]!.json!.stream_options).toBeUndefined();
    const text = await readSseText((streamed as { sse: ReadableStream<Uint8Array> }).sse);
    expect(text).toContain("event: response.created\n");
    expect(text).toContain("event: response.completed\n");
    const events = parse("responses", text);
    expect(textOf(events)).toBe("Hello from the stub.");
    expect(lastUsage(events)).toMatchObject({ usage: { outputTokens: 7 } });
  });
});

describe("errors", () => {
  test("a 400 the client caused is upstream_rejected with the upstream's message and body", async () => {
    const body = {
      error: {
        message: "Invalid value for 'temperature'.",
        type: "invalid_request_error",
        param: "temperature",
        code: null,
      },
    };
    stub.script({ status: 400, body });
    const answer = await provider().call(chat());
    expect(answer).toEqual({
      ok: false,
      code: "upstream_rejected",
      status: 400,
      message: "Invalid value for 'temperature'.",
      body,
      started: false,
    });
    expect(stub.requests).toHaveLength(1);
  });

  test("an unknown model (404) is upstream_rejected", async () => {
    const strict = startOpenAITextStub({ models: ["gpt-up-1"] });
    try {
      const answer = await createOpenAITextProvider({
        baseUrl: strict.url,
        apiKey: strict.apiKey,
      }).call(chat({ upstreamModel: "gpt-missing" }));
      expect(answer).toMatchObject({ ok: false, code: "upstream_rejected", status: 404 });
      expect((answer as { message: string }).message).toContain("gpt-missing");
    } finally {
      await strict.stop();
    }
  });

  test("a rejected key (401) is upstream_unavailable and says nothing of the key", async () => {
    const apiKey = "sk-wrong-key-0123456789";
    const answer = await provider({ apiKey }).call(chat());
    expect(answer).toMatchObject({
      ok: false,
      code: "upstream_unavailable",
      status: 401,
      started: false,
    });
    expect((answer as { body?: unknown }).body).toBeUndefined();
    expect(JSON.stringify(answer)).not.toContain(apiKey);
    expect(JSON.stringify(answer)).not.toContain("6789");
  });

  test("an upstream message quoting the key is scrubbed", async () => {
    stub.script({ status: 422, body: { error: { message: `bad request for ${stub.apiKey}` } } });
    const answer = await provider().call(chat());
    expect(answer).toMatchObject({
      code: "upstream_rejected",
      message: "bad request for [redacted]",
    });
    expectNoKey(answer);
  });

  test("a 500 is upstream_error, may have started, and is not retried", async () => {
    stub.script({ status: 500 });
    const answer = await provider().call(chat());
    expect(answer).toMatchObject({ ok: false, code: "upstream_error", status: 500, started: true });
    expect(stub.requests).toHaveLength(1);
    expectNoKey(answer);
  });
});

describe("retries", () => {
  test("503s are retried up to the attempt limit: N requests after N 503s", async () => {
    stub.script([{ status: 503 }, { status: 503 }, { status: 503 }]);
    const answer = await provider({ maxAttempts: 3 }).call(chat());
    expect(answer).toMatchObject({
      ok: false,
      code: "upstream_unavailable",
      status: 503,
      started: false,
    });
    expect(stub.requests).toHaveLength(3);
  });

  test("503, 429 then an answer: three requests, one answer", async () => {
    stub.script([{ status: 503 }, { status: 429, headers: { "retry-after-ms": "20" } }]);
    const started = Date.now();
    const answer = await provider({ maxAttempts: 3 }).call(chat());
    expect(answer).toMatchObject({ ok: true, status: 200 });
    expect(stub.requests).toHaveLength(3);
    expect(stub.requests[2]!.atMs - stub.requests[1]!.atMs).toBeGreaterThanOrEqual(15);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  test("a Retry-After beyond the longest retry wait ends the retries at once", async () => {
    stub.script({ status: 429, headers: { "retry-after": "60" } });
    const answer = await provider({ maxAttempts: 3, maxRetryWaitMs: 1_000 }).call(chat());
    expect(answer).toMatchObject({ code: "upstream_unavailable", status: 429, started: false });
    expect(stub.requests).toHaveLength(1);
  });

  test("a timeout after the request was sent: exactly 1 request, upstream_timeout, started", async () => {
    stub.script({ delayMs: 400 });
    const answer = await provider({ timeoutMs: 60, maxAttempts: 3 }).call(chat());
    expect(answer).toMatchObject({ ok: false, code: "upstream_timeout", started: true });
    await Bun.sleep(100);
    expect(stub.requests).toHaveLength(1);
  });

  test("a connection dropped after the request arrived: exactly 1 request, upstream_error", async () => {
    stub.script({ dropConnection: true });
    const answer = await provider({ maxAttempts: 3 }).call(chat());
    expect(answer).toMatchObject({ ok: false, code: "upstream_error", started: true });
    expect(stub.requests).toHaveLength(1);
  });

  test("a connection refused is retried up to the limit and is upstream_unavailable", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const url = `http://127.0.0.1:${closed.port}/v1`;
    await closed.stop(true);
    let calls = 0;
    const counting = ((input: string | URL | Request, init?: RequestInit) => {
      calls++;
      return fetch(input, init);
    }) as typeof fetch;
    const answer = await provider({ baseUrl: url, maxAttempts: 3, fetch: counting }).call(chat());
    expect(answer).toMatchObject({ ok: false, code: "upstream_unavailable", started: false });
    expect(calls).toBe(3);
    expectNoKey(answer);
  });

  test("a stream cut mid-way is handed over as begun and never retried", async () => {
    stub.script({ cutStream: true, afterFrames: 2 });
    const answer = await provider().call(chat({ stream: true }));
    expect(answer).toMatchObject({ ok: true, status: 200 });
    const { text } = await readSseUntilError((answer as { sse: ReadableStream<Uint8Array> }).sse);
    const events = parse("chat", text);
    expect(events.at(-1)).toMatchObject({ type: "error" });
    expect(stub.requests).toHaveLength(1);
  });
});

describe("lanes, aborts and silence", () => {
  test("concurrency 1 sends calls one after another", async () => {
    const slow = startOpenAITextStub({ latencyMs: 60 });
    try {
      const one = createOpenAITextProvider({
        baseUrl: slow.url,
        apiKey: slow.apiKey,
        concurrency: 1,
      });
      const answers = await Promise.all([one.call(chat()), one.call(chat()), one.call(chat())]);
      expect(answers.every((answer) => answer.ok)).toBe(true);
      const [a, b, c] = slow.requests.map((request) => request.atMs);
      expect(b! - a!).toBeGreaterThanOrEqual(50);
      expect(c! - b!).toBeGreaterThanOrEqual(50);
    } finally {
      await slow.stop();
    }
  });

  test("a stream's lane is freed when the stream is cancelled", async () => {
    const one = provider({ concurrency: 1, timeoutMs: 500 });
    const first = await one.call(chat({ stream: true }));
    await (first as { sse: ReadableStream<Uint8Array> }).sse.cancel();
    expect(await one.call(chat())).toMatchObject({ ok: true });
  });

  test("a caller that aborts before the answer gets upstream_timeout, nothing retried", async () => {
    stub.script({ delayMs: 300 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const answer = await provider().call(chat({ signal: controller.signal }));
    expect(answer).toMatchObject({
      ok: false,
      code: "upstream_timeout",
      message: "aborted by the caller",
    });
    expect(stub.requests).toHaveLength(1);
  });

  test("an already aborted call sends nothing", async () => {
    const answer = await provider().call(chat({ signal: AbortSignal.abort() }));
    expect(answer).toMatchObject({ ok: false, code: "upstream_timeout", started: false });
    expect(stub.requests).toHaveLength(0);
  });

  test("a stream silent for longer than the timeout errors", async () => {
    const quiet = startOpenAITextStub({ frameDelayMs: 300 });
    try {
      const answer = await createOpenAITextProvider({
        baseUrl: quiet.url,
        apiKey: quiet.apiKey,
        timeoutMs: 100,
      }).call(chat({ stream: true }));
      const { error } = await readSseUntilError(
        (answer as { sse: ReadableStream<Uint8Array> }).sse,
      );
      expect(error).toBeDefined();
    } finally {
      await quiet.stop();
    }
  });

  test("a stream with chunks closer than the timeout outlives it", async () => {
    const paced = startOpenAITextStub({ frameDelayMs: 40 });
    try {
      const answer = await createOpenAITextProvider({
        baseUrl: paced.url,
        apiKey: paced.apiKey,
        timeoutMs: 120,
      }).call(chat({ stream: true }));
      const started = Date.now();
      const text = await readSseText((answer as { sse: ReadableStream<Uint8Array> }).sse);
      expect(Date.now() - started).toBeGreaterThan(120);
      expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    } finally {
      await paced.stop();
    }
  });
});
