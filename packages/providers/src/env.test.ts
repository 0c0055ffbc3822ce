// Proves createProviderFromEnv picks the offline provider by default, builds the OpenAI one
// from its variables (talking to the stub), and refuses configurations that cannot work.
import { expect, test } from "bun:test";
import { createProviderFromEnv } from "./env.ts";
import { startOpenAIImagesStub } from "./testing/index.ts";

test("offline unless told otherwise", () => {
  expect(createProviderFromEnv({}).name).toBe("offline");
  expect(createProviderFromEnv({ IMAGE_PROVIDER: "offline", OFFLINE_LATENCY_MS: "5" }).name).toBe(
    "offline",
  );
});

test("openai from its variables", async () => {
  const stub = await startOpenAIImagesStub();
  try {
    const provider = createProviderFromEnv({
      IMAGE_PROVIDER: "openai",
      OPENAI_BASE_URL: stub.url,
      OPENAI_API_KEY: stub.apiKey,
      PROVIDER_MAX_ATTEMPTS: "2",
      PROVIDER_RETRY_BASE_MS: "1",
    });
    stub.script([{ status: 503 }, { status: 503 }]);
    const result = await provider.run({
      taskId: "t",
      model: "gpt-image-1",
      upstreamModel: "gpt-image-1",
      operation: "generate",
      prompt: "p",
      input: {},
      images: [],
    });
    expect(result).toMatchObject({ ok: false, code: "upstream_unavailable", attempts: 2 });
  } finally {
    await stub.stop();
  }
});

test("configurations that cannot work throw at start", () => {
  expect(() => createProviderFromEnv({ IMAGE_PROVIDER: "dalle" })).toThrow(/IMAGE_PROVIDER/);
  expect(() => createProviderFromEnv({ IMAGE_PROVIDER: "openai" })).toThrow(/OPENAI_API_KEY/);
  expect(() =>
    createProviderFromEnv({
      IMAGE_PROVIDER: "openai",
      OPENAI_API_KEY: "k",
      PROVIDER_MAX_ATTEMPTS: "x",
    }),
  ).toThrow(/PROVIDER_MAX_ATTEMPTS/);
  expect(() =>
    createProviderFromEnv({
      IMAGE_PROVIDER: "openai",
      OPENAI_API_KEY: "k",
      OPENAI_BASE_URL: "not a url",
    }),
  ).toThrow();
});
