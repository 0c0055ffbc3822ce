// Proves the text stubs keep the public APIs' own rules, read with plain fetch: each API's
// auth (and its error shape), Anthropic's required version header, Gemini's ?key= and its
// JSON-array stream without alt=sse, chat usage chunks only with include_usage, the
// responses event order, the recording with secrets redacted, and the scripted behaviours.
import { afterAll, describe, expect, test } from "bun:test";
import { readSseText, readSseUntilError } from "./sse-text.ts";
import { startAnthropicStub, startGeminiStub, startOpenAITextStub } from "./text-stubs.ts";

const openai = startOpenAITextStub();
const anthropic = startAnthropicStub();
const gemini = startGeminiStub();
afterAll(() => Promise.all([openai.stop(), anthropic.stop(), gemini.stop()]));

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
const bearer = { authorization: `Bearer ${openai.apiKey}` };
const chatBody = { model: "gpt-x", messages: [{ role: "user", content: "hi" }] };

describe("OpenAI", () => {
  test("a wrong key is 401 invalid_api_key, the key masked; no key says so", async () => {
    const wrong = await post(`${openai.url}/chat/completions`, chatBody, {
      authorization: "Bearer sk-wrong-0123456789",
    });
    const body = (await wrong.json()) as { error: { code: string; message: string } };
    expect([wrong.status, body.error.code]).toEqual([401, "invalid_api_key"]);
    expect(body.error.message).toContain("sk-*****6789");
    const none = await post(`${openai.url}/chat/completions`, chatBody);
    expect(none.status).toBe(401);
  });

  test("a chat stream without include_usage has no usage at all", async () => {
    const response = await post(
      `${openai.url}/chat/completions`,
      { ...chatBody, stream: true },
      bearer,
    );
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const text = await readSseText(response.body!);
    expect(text).not.toContain("usage");
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  test("a chat stream with include_usage: usage null in chunks, then a usage chunk", async () => {
    const response = await post(
      `${openai.url}/chat/completions`,
      { ...chatBody, stream: true, stream_options: { include_usage: true } },
      bearer,
    );
    const frames = (await readSseText(response.body!)).split("\n\n").filter(Boolean);
    expect(frames.at(-1)).toBe("data: [DONE]");
    const last = JSON.parse(frames.at(-2)!.slice("data: ".length));
    expect(last).toMatchObject({ choices: [], usage: { prompt_tokens: 20, total_tokens: 25 } });
    expect(JSON.parse(frames[0]!.slice("data: ".length)).usage).toBeNull();
  });

  test("the responses stream follows the documented event order", async () => {
    const response = await post(
      `${openai.url}/responses`,
      { model: "gpt-x", input: "hi", stream: true },
      bearer,
    );
    const text = await readSseText(response.body!);
    const names = [...text.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
    expect(names).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const sequence = [...text.matchAll(/"sequence_number":(\d+)/g)].map((match) =>
      Number(match[1]),
    );
    expect(sequence).toEqual([...sequence.keys()]);
  });

  test("missing messages is 400 missing_required_parameter", async () => {
    const response = await post(`${openai.url}/chat/completions`, { model: "gpt-x" }, bearer);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: "missing_required_parameter", param: "messages" },
    });
  });
});

describe("Anthropic", () => {
  const headers = { "x-api-key": anthropic.apiKey, "anthropic-version": "2023-06-01" };
  const body = { model: "claude-x", max_tokens: 10, messages: [{ role: "user", content: "hi" }] };

  test("anthropic-version is required; a wrong key is authentication_error", async () => {
    const noVersion = await post(`${anthropic.url}/v1/messages`, body, {
      "x-api-key": anthropic.apiKey,
    });
    expect([noVersion.status, await noVersion.json()]).toMatchObject([
      400,
      { type: "error", error: { type: "invalid_request_error" } },
    ]);
    const wrong = await post(`${anthropic.url}/v1/messages`, body, {
      ...headers,
      "x-api-key": "nope",
    });
    expect([wrong.status, await wrong.json()]).toMatchObject([
      401,
      { type: "error", error: { type: "authentication_error" } },
    ]);
  });

  test("a tool call streams as tool_use with input_json_delta and stop_reason tool_use", async () => {
    anthropic.setAnswer({ text: "", toolCall: { id: "toolu_1", name: "f", arguments: '{"a":1}' } });
    try {
      const response = await post(
        `${anthropic.url}/v1/messages`,
        { ...body, stream: true },
        headers,
      );
      const text = await readSseText(response.body!);
      expect(text).toContain(
        '"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}',
      );
      expect(text).toContain('"type":"input_json_delta"');
      expect(text).toContain('"stop_reason":"tool_use"');
      const json = await (await post(`${anthropic.url}/v1/messages`, body, headers)).json();
      expect(json).toMatchObject({
        content: [{ type: "tool_use", input: { a: 1 } }],
        stop_reason: "tool_use",
      });
    } finally {
      anthropic.setAnswer({ text: "Hello from the stub.", toolCall: undefined });
    }
  });
});

describe("Gemini", () => {
  const body = { contents: [{ role: "user", parts: [{ text: "hi" }] }] };
  const path = (method: string) => `${gemini.url}/v1beta/models/gemini-x:${method}`;

  test("?key= authenticates and is redacted in the record", async () => {
    const response = await post(`${path("generateContent")}?key=${gemini.apiKey}`, body);
    expect(response.status).toBe(200);
    expect(gemini.requests.at(-1)!.query).toEqual({ key: "[redacted]" });
    expect(JSON.stringify(gemini.requests)).not.toContain(gemini.apiKey);
  });

  test("no key is 403 PERMISSION_DENIED", async () => {
    const response = await post(path("generateContent"), body);
    expect([response.status, await response.json()]).toMatchObject([
      403,
      { error: { status: "PERMISSION_DENIED" } },
    ]);
  });

  test("streamGenerateContent without alt=sse answers a JSON array of chunks", async () => {
    const response = await post(path("streamGenerateContent"), body, {
      "x-goog-api-key": gemini.apiKey,
    });
    const chunks = (await response.json()) as { candidates: { finishReason?: string }[] }[];
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.at(-1)!.candidates[0]!.finishReason).toBe("STOP");
  });
});

describe("scripted behaviours", () => {
  test("a hung request answers on release; a cut stream breaks after its frames", async () => {
    openai.script({ hang: true });
    const pending = post(`${openai.url}/chat/completions`, chatBody, bearer);
    await Bun.sleep(20);
    openai.release();
    expect((await pending).status).toBe(200);
    openai.script({ cutStream: true, afterFrames: 1 });
    const cut = await post(`${openai.url}/chat/completions`, { ...chatBody, stream: true }, bearer);
    const { text, error } = await readSseUntilError(cut.body!);
    expect(text.split("\n\n").filter(Boolean)).toHaveLength(1);
    expect(error).toBeDefined();
    expect(openai.requests.at(-1)!.behaviour).toBe("cutStream");
  });

  test("usage can be replaced or removed", async () => {
    openai.setUsage({ prompt_tokens: 1, completion_tokens: 2 });
    const one = await (await post(`${openai.url}/chat/completions`, chatBody, bearer)).json();
    expect(one).toMatchObject({
      usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    });
    openai.setUsage(null);
    const none = await (await post(`${openai.url}/chat/completions`, chatBody, bearer)).json();
    expect(none).not.toHaveProperty("usage");
    openai.setUsage({});
  });
});
