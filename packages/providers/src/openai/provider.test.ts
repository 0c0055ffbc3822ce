// Proves the OpenAI images provider over real HTTP against the stub: generations and edits
// as the public API shapes them, b64_json and url results, and the transient-failure
// policy: 429, 503 and unconnectable hosts are retried; timeouts, 5xx and broken bodies are
// not (attempts === 1); moderation and credential failures map without echoing the key.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import sharp from "sharp";
import { digestOf, encodeImage, pictureLine } from "../image/render.ts";
import { startOpenAIImagesStub } from "../testing/index.ts";
import type { ImageJob, ProviderResult, SourceImage } from "../types.ts";
import { createOpenAIImagesProvider, type OpenAIImagesProviderOptions } from "./provider.ts";

const stub = await startOpenAIImagesStub();
afterAll(() => stub.stop());
beforeEach(() => {
  stub.requests.length = 0;
});

function provider(overrides: Partial<OpenAIImagesProviderOptions> = {}) {
  return createOpenAIImagesProvider({
    baseUrl: stub.url,
    apiKey: stub.apiKey,
    retryBaseMs: 5,
    ...overrides,
  });
}

function job(overrides: Partial<ImageJob> = {}): ImageJob {
  return {
    taskId: "task-1",
    model: "gpt-image-1",
    upstreamModel: "gpt-image-1",
    operation: "generate",
    prompt: "a red bicycle",
    input: { n: 1, size: "64x48" },
    images: [],
    ...overrides,
  };
}

async function png(
  width: number,
  height: number,
  field: string,
  filename: string,
): Promise<SourceImage> {
  const bytes = await encodeImage(pictureLine(digestOf(filename), width, height), "png");
  return { field, bytes, contentType: "image/png", filename };
}

function apiRequests() {
  return stub.requests.filter((request) => request.path.startsWith("/v1/images/"));
}

describe("generations", () => {
  test("b64_json results decode at the requested size, with only the set fields sent", async () => {
    const result = await provider().run(job({ input: { n: 2, size: "64x48", quality: "low" } }));
    expect(result).toMatchObject({ ok: true, attempts: 1 });
    const files = (result as Extract<ProviderResult, { ok: true }>).files;
    expect(files).toHaveLength(2);
    for (const file of files) {
      const metadata = await sharp(file.bytes).metadata();
      expect([file.ext, file.contentType, metadata.width, metadata.height]).toEqual([
        "png",
        "image/png",
        64,
        48,
      ]);
    }
    const [request] = apiRequests();
    expect(request!.path).toBe("/v1/images/generations");
    expect(request!.json).toEqual({
      model: "gpt-image-1",
      prompt: "a red bicycle",
      n: 2,
      size: "64x48",
      quality: "low",
    });
    expect(request!.headers.authorization).toBe("[redacted]");
    expect(request!.authorized).toBe(true);
  });

  test("url results are downloaded from the provider host", async () => {
    const result = await provider().run(
      job({ input: { n: 2, size: "32x32", response_format: "url", output_format: "webp" } }),
    );
    expect(result).toMatchObject({ ok: true, attempts: 1 });
    const files = (result as Extract<ProviderResult, { ok: true }>).files;
    expect(files.map((file) => file.ext)).toEqual(["webp", "webp"]);
    expect((await sharp(files[0]!.bytes).metadata()).width).toBe(32);
    expect(stub.requests.filter((request) => request.path.startsWith("/files/"))).toHaveLength(2);
  });

  test("a url on another host is refused, not fetched", async () => {
    stub.script({
      status: 200,
      body: { created: 1, data: [{ url: "http://127.0.0.2:9/evil.png" }] },
    });
    const result = await provider().run(job());
    expect(result).toMatchObject({ ok: false, code: "upstream_error", attempts: 1 });
  });

  test("a download over the size cap fails", async () => {
    const result = await provider({ maxDownloadBytes: 100 }).run(
      job({ input: { size: "256x256", response_format: "url" } }),
    );
    expect(result).toMatchObject({ ok: false, code: "upstream_error", attempts: 1 });
  });
});

describe("edits", () => {
  test("several images go as image[] parts with a mask part and the fields", async () => {
    const images = [
      await png(40, 30, "image_urls", "a.png"),
      await png(20, 10, "image_urls", "b.png"),
      await png(16, 16, "input_urls", "c.png"),
      await png(40, 30, "mask_url", "mask.png"),
    ];
    const result = await provider().run(
      job({
        operation: "image-edit",
        input: { n: 1, size: "48x48", quality: "high", background: "transparent" },
        images,
      }),
    );
    expect(result).toMatchObject({ ok: true, attempts: 1 });
    const [request] = apiRequests();
    expect(request!.path).toBe("/v1/images/edits");
    expect(request!.multipart!.fields).toEqual({
      model: "gpt-image-1",
      prompt: "a red bicycle",
      n: "1",
      size: "48x48",
      quality: "high",
      background: "transparent",
    });
    expect(request!.multipart!.files).toEqual([
      { name: "image[]", filename: "a.png", size: images[0]!.bytes.length, type: "image/png" },
      { name: "image[]", filename: "b.png", size: images[1]!.bytes.length, type: "image/png" },
      { name: "image[]", filename: "c.png", size: images[2]!.bytes.length, type: "image/png" },
      { name: "mask", filename: "mask.png", size: images[3]!.bytes.length, type: "image/png" },
    ]);
  });

  test("one image goes as a single image part", async () => {
    await provider().run(
      job({ operation: "region-edit", images: [await png(8, 8, "image_url", "one.png")] }),
    );
    expect(apiRequests()[0]!.multipart!.files.map((file) => file.name)).toEqual(["image"]);
  });

  test("operations the API does not have fail before any request", async () => {
    const result = await provider().run(job({ operation: "segment-map" }));
    expect(result).toEqual({
      ok: false,
      code: "invalid_request",
      message: "operation segment-map is not supported by provider openai",
      attempts: 0,
    });
    expect(apiRequests()).toHaveLength(0);
  });
});

describe("retried: nothing can have been generated", () => {
  test("429 then 503 then success: three attempts", async () => {
    stub.script([{ status: 429 }, { status: 503 }]);
    expect(await provider().run(job())).toMatchObject({ ok: true, attempts: 3 });
    expect(apiRequests().map((request) => request.behaviour)).toEqual([
      "status 429",
      "status 503",
      undefined,
    ]);
  });

  test("Retry-After is honoured", async () => {
    stub.script({ status: 429, headers: { "retry-after": "0.2" } });
    expect(await provider().run(job())).toMatchObject({ ok: true, attempts: 2 });
    const [first, second] = apiRequests();
    expect(second!.atMs - first!.atMs).toBeGreaterThanOrEqual(150);
  });

  test("still limited after maxAttempts: rate_limited / upstream_unavailable", async () => {
    stub.script([{ status: 429 }, { status: 429 }, { status: 429 }]);
    expect(await provider().run(job())).toMatchObject({
      ok: false,
      code: "rate_limited",
      attempts: 3,
    });
    stub.script([{ status: 503 }, { status: 503 }]);
    expect(await provider({ maxAttempts: 2 }).run(job())).toMatchObject({
      ok: false,
      code: "upstream_unavailable",
      attempts: 2,
    });
  });

  test("a connection dropped after the request was sent is not retried", async () => {
    stub.script({ dropConnection: true });
    expect(await provider().run(job())).toMatchObject({ ok: false, attempts: 1 });
  });

  test("connection refused is retried, then upstream_unavailable", async () => {
    const gone = await startOpenAIImagesStub();
    await gone.stop();
    const result = await provider({ baseUrl: gone.url }).run(job());
    expect(result).toMatchObject({ ok: false, code: "upstream_unavailable", attempts: 3 });
  });
});

describe("never retried: the upstream may have started (and may bill)", () => {
  test("a timeout after the request was sent is upstream_timeout after one attempt", async () => {
    stub.script({ hang: true });
    const result = await provider({ timeoutMs: 200 }).run(job());
    expect(result).toMatchObject({ ok: false, code: "upstream_timeout", attempts: 1 });
    expect(apiRequests()).toHaveLength(1);
    stub.release();
  });

  for (const status of [500, 502, 504]) {
    test(`${status} is upstream_error after one attempt`, async () => {
      stub.script({ status });
      expect(await provider().run(job())).toMatchObject({
        ok: false,
        code: "upstream_error",
        attempts: 1,
      });
      expect(apiRequests()).toHaveLength(1);
    });
  }

  test("a body that breaks off mid-way is upstream_error after one attempt", async () => {
    stub.script({ breakBody: true });
    expect(await provider().run(job())).toMatchObject({
      ok: false,
      code: "upstream_error",
      attempts: 1,
    });
    expect(apiRequests()).toHaveLength(1);
  });

  test("the caller's signal ends a hung request", async () => {
    stub.script({ hang: true });
    const controller = new AbortController();
    const pending = provider().run(job({ signal: controller.signal }));
    while (apiRequests().length === 0) await Bun.sleep(5);
    controller.abort();
    expect(await pending).toMatchObject({
      ok: false,
      code: "upstream_timeout",
      message: "aborted by the caller",
      attempts: 1,
    });
    stub.release();
  });
});

describe("refusals", () => {
  const moderationBodies = [
    {
      error: {
        message: "Your request was rejected by the safety system.",
        type: "image_generation_user_error",
        code: "moderation_blocked",
      },
    },
    {
      error: {
        message: "Content policy.",
        type: "invalid_request_error",
        code: "content_policy_violation",
      },
    },
    { error: { message: "Flagged.", type: "moderation_error", code: null } },
  ];
  for (const body of moderationBodies) {
    test(`400 ${body.error.code ?? body.error.type} is moderation with the upstream message`, async () => {
      stub.script({ status: 400, body });
      expect(await provider().run(job())).toEqual({
        ok: false,
        code: "moderation",
        message: body.error.message,
        attempts: 1,
      });
    });
  }

  test("other 4xx are invalid_request", async () => {
    stub.script({
      status: 400,
      body: {
        error: { message: "Invalid size.", type: "invalid_request_error", code: "invalid_value" },
      },
    });
    expect(await provider().run(job())).toMatchObject({
      ok: false,
      code: "invalid_request",
      attempts: 1,
    });
    expect(await provider().run(job({ input: { size: "nope" } }))).toMatchObject({
      ok: false,
      code: "invalid_request",
    });
  });

  test("a rejected key is upstream_error and the key is never echoed", async () => {
    const key = "sk-wrong-key-0123456789";
    const result = await provider({ apiKey: key }).run(job());
    expect(result).toEqual({
      ok: false,
      code: "upstream_error",
      message: "provider credentials rejected",
      attempts: 1,
    });
    stub.script({
      status: 400,
      body: { error: { message: `bad key ${key} here`, type: "x", code: "y" } },
    });
    const echoed = await provider({ apiKey: key }).run(job());
    expect(JSON.stringify(echoed)).not.toContain(key);
  });
});
