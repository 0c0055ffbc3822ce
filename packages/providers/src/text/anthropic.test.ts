// Proves the Anthropic messages provider against the hand-written stub: x-api-key and
// anthropic-version on the wire with the upstream model, the message JSON and the full SSE
// event sequence passed through with cache usage, errors mapped without the key, and
// retries only where nothing started (529/503 retried N times; 1 request after a timeout).
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { createStreamParser, readResult, type StreamEvent } from "@gw/textformats";
import { readSseText, startAnthropicStub } from "../testing/index.ts";
import { createAnthropicTextProvider } from "./anthropic.ts";
import type { HttpTextProviderOptions } from "./http-call.ts";
import type { TextAnswer, TextCall } from "./types.ts";

const USAGE = {
  input_tokens: 40,
  output_tokens: 9,
  cache_read_input_tokens: 1000,
  cache_creation_input_tokens: 300,
};
const stub = startAnthropicStub({ usage: USAGE });
afterAll(() => stub.stop());
beforeEach(() => {
  stub.requests.length = 0;
});

const provider = (overrides: Partial<HttpTextProviderOptions> = {}) =>
  createAnthropicTextProvider({
    baseUrl: stub.url,
    apiKey: stub.apiKey,
    retryBaseMs: 5,
    ...overrides,
  });

const call = (overrides: Partial<TextCall> = {}): TextCall => ({
  format: "messages",
  upstreamModel: "claude-up-1",
  body: {
    model: "client-model",
    max_tokens: 100,
    system: "Be brief.",
    messages: [{ role: "user", content: "Say hello." }],
    metadata: { user_id: "u-1" },
  },
  stream: false,
  signal: new AbortController().signal,
  ...overrides,
});

const sseOf = (answer: TextAnswer) => (answer as { sse: ReadableStream<Uint8Array> }).sse;

function parse(text: string): StreamEvent[] {
  const parser = createStreamParser("messages");
  return [...parser.push(text), ...parser.end()];
}

describe("messages", () => {
  test("JSON: x-api-key, anthropic-version and the upstream model on the wire", async () => {
    const answer = await provider().call(call());
    expect(answer).toMatchObject({ ok: true, status: 200 });
    const [request] = stub.requests;
    expect(request).toMatchObject({ path: "/v1/messages", authorized: true });
    expect(request!.headers["x-api-key"]).toBe("[redacted]");
    expect(request!.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request!.headers.authorization).toBeUndefined();
    expect(request!.json).toEqual({ ...call().body, model: "claude-up-1" });
    const read = readResult("messages", (answer as { json: unknown }).json);
    expect(read.ok && read.value.usage).toEqual({
      inputTokens: 40,
      outputTokens: 9,
      cacheReadTokens: 1000,
      cacheWriteTokens: 300,
    });
  });

  test("SSE: the full event sequence passes through, usage from message_start and message_delta", async () => {
    const answer = await provider().call(call({ stream: true }));
    expect(stub.requests[0]!.json).toMatchObject({ stream: true });
    const text = await readSseText(sseOf(answer));
    const names = [...text.matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
    expect(names).toEqual([
      "message_start",
      "content_block_start",
      "ping",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const events = parse(text);
    expect(events.findLast((event) => event.type === "usage")).toEqual({
      type: "usage",
      usage: { inputTokens: 40, outputTokens: 9, cacheReadTokens: 1000, cacheWriteTokens: 300 },
    });
    expect(events.some((event) => event.type === "error")).toBe(false);
  });
});

describe("errors and retries", () => {
  test("a 400 is upstream_rejected with Anthropic's error body", async () => {
    const answer = await provider().call(call({ body: { model: "x", messages: [] } }));
    expect(answer).toMatchObject({
      ok: false,
      code: "upstream_rejected",
      status: 400,
      message: "max_tokens: Field required",
      body: { type: "error", error: { type: "invalid_request_error" } },
      started: false,
    });
  });

  test("a wrong key (401) is upstream_unavailable, the key never in the answer", async () => {
    const apiKey = "sk-ant-wrong-0123456789";
    const answer = await provider({ apiKey }).call(call());
    expect(answer).toMatchObject({ code: "upstream_unavailable", status: 401, started: false });
    expect(JSON.stringify(answer)).not.toContain(apiKey);
  });

  test("529 overloaded and 503 are retried: N requests after N refusals", async () => {
    stub.script([{ status: 529 }, { status: 503 }, { status: 529 }]);
    const answer = await provider({ maxAttempts: 3 }).call(call());
    expect(answer).toMatchObject({ code: "upstream_unavailable", status: 529, started: false });
    expect(stub.requests).toHaveLength(3);
    expect((answer as { message: string }).message).toContain("Overloaded");
  });

  test("a 529 then an answer succeeds on the second request", async () => {
    stub.script({ status: 529 });
    expect(await provider().call(call())).toMatchObject({ ok: true });
    expect(stub.requests).toHaveLength(2);
  });

  test("a timeout after the request was sent is 1 request, never retried", async () => {
    stub.script({ delayMs: 300 });
    const answer = await provider({ timeoutMs: 50 }).call(call());
    expect(answer).toMatchObject({ code: "upstream_timeout", started: true });
    await Bun.sleep(80);
    expect(stub.requests).toHaveLength(1);
  });
});
