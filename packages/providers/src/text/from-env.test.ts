// Proves textProvidersFromEnv builds offline always and each HTTP provider only when its
// base URL is set, refuses a base URL without a key or a malformed number at start, gives
// each provider its own lane (UPSTREAM_<NAME>_CONCURRENCY), and nativeFormatOf's table.
import { afterAll, expect, test } from "bun:test";
import { startOpenAITextStub } from "../testing/index.ts";
import { envLaneLimit, nativeFormatOf, textProvidersFromEnv } from "./from-env.ts";

const stub = startOpenAITextStub({ latencyMs: 40 });
afterAll(() => stub.stop());

test("offline always; the others when their base URL is set", () => {
  expect([...textProvidersFromEnv({}).keys()]).toEqual(["offline"]);
  const all = textProvidersFromEnv({
    UPSTREAM_OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
    UPSTREAM_OPENAI_API_KEY: "k1",
    UPSTREAM_ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
    UPSTREAM_ANTHROPIC_API_KEY: "k2",
    UPSTREAM_GEMINI_BASE_URL: "http://127.0.0.1:9",
    UPSTREAM_GEMINI_API_KEY: "k3",
  });
  expect([...all.keys()]).toEqual(["offline", "openai", "anthropic", "gemini"]);
  expect(all.get("anthropic")!.formats).toEqual(["messages"]);
  expect(all.get("offline")!.formats).toEqual(["chat", "responses", "messages", "generateContent"]);
});

test("a base URL without its key, a bad number or a bad URL throws at start", () => {
  expect(() => textProvidersFromEnv({ UPSTREAM_GEMINI_BASE_URL: "http://x" })).toThrow(
    "UPSTREAM_GEMINI_API_KEY",
  );
  expect(() => textProvidersFromEnv({ UPSTREAM_TIMEOUT_MS: "soon" })).toThrow(
    "UPSTREAM_TIMEOUT_MS",
  );
  expect(() =>
    textProvidersFromEnv({ UPSTREAM_OPENAI_BASE_URL: "not a url", UPSTREAM_OPENAI_API_KEY: "k" }),
  ).toThrow();
});

test("lane limits: per provider, else UPSTREAM_CONCURRENCY, else 2048", () => {
  const limit = envLaneLimit({ UPSTREAM_OPENAI_CONCURRENCY: "8", UPSTREAM_CONCURRENCY: "64" });
  expect([limit("openai"), limit("gemini")]).toEqual([8, 64]);
  expect(envLaneLimit({})("anthropic")).toBe(2048);
  expect(() => envLaneLimit({ UPSTREAM_OPENAI_CONCURRENCY: "0" })("openai")).toThrow();
});

test("UPSTREAM_OPENAI_CONCURRENCY=1 sends one call at a time", async () => {
  const providers = textProvidersFromEnv({
    UPSTREAM_OPENAI_BASE_URL: stub.url,
    UPSTREAM_OPENAI_API_KEY: stub.apiKey,
    UPSTREAM_OPENAI_CONCURRENCY: "1",
  });
  const call = {
    format: "chat" as const,
    upstreamModel: "m",
    body: { messages: [{ role: "user", content: "hi" }] },
    stream: false,
    signal: new AbortController().signal,
  };
  const openai = providers.get("openai")!;
  const answers = await Promise.all([openai.call(call), openai.call(call)]);
  expect(answers.map((answer) => answer.ok)).toEqual([true, true]);
  const [a, b] = stub.requests.map((request) => request.atMs);
  expect(b! - a!).toBeGreaterThanOrEqual(35);
});

test("nativeFormatOf", () => {
  expect(["openai", "anthropic", "gemini", "offline", "other"].map(nativeFormatOf)).toEqual([
    "chat",
    "messages",
    "generateContent",
    "any",
    undefined,
  ]);
});
