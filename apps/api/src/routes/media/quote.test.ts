// Proves POST /v1/media/quote prices every default model and operation exactly as a
// hand-computed table says, applies the account discount, and refuses bad input with
// 400/401/403/413 in the one error shape while creating, holding and charging nothing.
import { describe, expect, test } from "bun:test";
import { startTestApi } from "../../testing.ts";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below
type Body = any;
const api = await startTestApi();
const { secret, userId } = await api.account({ balanceUsd: 5 });
const url = (name: string) => `https://img.example.com/${name}.png`;

async function quote(body: unknown, key = secret) {
  const response = await api.call("POST", "/v1/media/quote", { key, body });
  return { status: response.status, body: (await response.json()) as Body };
}

/** What must stay untouched by a quote: wallet, holds and ledger of the account. */
async function accountState() {
  const [row] = await api.store.sql<{ balance: bigint; holds: bigint; entries: bigint }[]>`
    select u.balance_quota as balance,
           (select count(*) from holds where user_id = u.id) as holds,
           (select count(*) from ledger_entries where user_id = u.id) as entries
    from users u where u.id = ${BigInt(userId)}`;
  const wallets = await api.store.redis.keys(`${api.store.prefix}:{u:${userId}}:*`);
  const held = await Promise.all(wallets.map((key) => api.store.redis.hget(key, "held")));
  return { ...row, held };
}

// [call, operation, quota, usd]: 1 USD = 500,000 quota. Rates from the README table.
const TABLE: [Record<string, unknown>, string, number, number][] = [
  [{ model: "lumina-image", prompt: "p" }, "text-to-image", 22_500, 0.045],
  [
    { model: "lumina-image-flare", prompt: "p", input: { resolution: "2K" } },
    "text-to-image",
    37_500,
    0.075,
  ],
  [
    { model: "lumina-image-sunburst", prompt: "p", input: { resolution: "4K", n: 3 } },
    "text-to-image",
    180_000,
    0.36,
  ],
  [{ model: "lumina-image", prompt: "p", image: url("a") }, "image-to-image", 22_500, 0.045],
  [
    { model: "lumina-image-sunburst", prompt: "p", image: url("a"), input: { resolution: "2K" } },
    "image-to-image",
    37_500,
    0.075,
  ],
  [
    {
      model: "lumina-image-flare",
      prompt: "p",
      operation: "image-to-image",
      input: { image_urls: [url("a")], resolution: "4K" },
    },
    "image-to-image",
    60_000,
    0.12,
  ],
  [{ model: "gpt-image-1", prompt: "p" }, "generate", 21_000, 0.042],
  [
    { model: "gpt-image-1", prompt: "p", quality: "high", size: "1536x1024", n: 2 },
    "generate",
    250_000,
    0.5,
  ],
  [
    { model: "gpt-image-1", prompt: "p", input: { quality: "low", size: "1024x1536" } },
    "generate",
    8_000,
    0.016,
  ],
  [
    { model: "gpt-image-1", prompt: "p", image: url("a"), input: { quality: "low" } },
    "image-edit",
    10_500,
    0.021,
  ],
  [
    {
      model: "gpt-image-1",
      prompt: "p",
      image: [url("a"), url("b")],
      input: { input_urls: [url("c")] },
    },
    "image-edit",
    36_000,
    0.072,
  ],
  [
    { model: "atlas-segment", operation: "segment-map", input: { image_url: url("a") } },
    "segment-map",
    5_000,
    0.01,
  ],
  [
    { model: "atlas-segment", operation: "segment-map", input: { task_id: "task_123" } },
    "segment-map",
    5_000,
    0.01,
  ],
  [{ model: "crisp-upscale", operation: "upscale", image: url("a") }, "upscale", 5_000, 0.01],
  [
    { model: "crisp-upscale", operation: "upscale", image: url("a"), input: { scale: 4 } },
    "upscale",
    10_000,
    0.02,
  ],
  [
    {
      model: "patch-edit",
      operation: "region-edit",
      prompt: "p",
      image: url("a"),
      mask: url("m"),
      n: 2,
    },
    "region-edit",
    40_000,
    0.08,
  ],
  [
    { model: "patch-edit", operation: "layer-separation", image: url("a") },
    "layer-separation",
    15_000,
    0.03,
  ],
  [{ model: "sonora/music", prompt: "p" }, "generate", 30_000, 0.06],
  [
    { model: "sonora/music", prompt: "p", input: { customMode: true, style: "jazz", title: "T" } },
    "generate",
    30_000,
    0.06,
  ],
  [
    { model: "sonora/music", operation: "extend", input: { audioId: "task_1:0" } },
    "extend",
    30_000,
    0.06,
  ],
  [
    { model: "sonora/music", operation: "separate", input: { audioId: "task_1:1" } },
    "separate",
    15_000,
    0.03,
  ],
  [
    { model: "sonora/music", operation: "separate", input: { audioId: "task_1:1", type: "stems" } },
    "separate",
    25_000,
    0.05,
  ],
  [
    { model: "sonora/music", operation: "wav", input: { audioId: "task_1:0" } },
    "wav",
    2_000,
    0.004,
  ],
  [{ model: "motion-video", prompt: "p" }, "text-to-video", 250_000, 0.5],
  [
    {
      model: "motion-video",
      prompt: "p",
      input: { resolution: "1080p", duration: 8, sound: true },
    },
    "text-to-video",
    1_200_000,
    2.4,
  ],
  [
    {
      model: "motion-video",
      prompt: "p",
      input: { resolution: "480p", duration: 10, sound: true },
    },
    "text-to-video",
    375_000,
    0.75,
  ],
  [
    {
      model: "motion-video",
      operation: "image-to-video",
      prompt: "p",
      image: url("a"),
      input: { resolution: "480p", duration: 10 },
    },
    "image-to-video",
    250_000,
    0.5,
  ],
];

describe("quote prices", () => {
  test.each(TABLE)("%o -> %s", async (call, operation, quota, usd) => {
    const { status, body } = await quote(call);
    expect(status).toBe(200);
    expect(body.billing.operation).toBe(operation);
    expect(body.billing.quota).toBe(quota);
    expect(body.billing.usd).toBe(usd);
    expect(body.billing.currency).toBe("USD");
    expect(body.billing.version).toBe("2026-11-01");
    expect(body.billing.pending).toBe(false);
  });

  test("speech is priced per second of result: pending at $0 with the rate stated", async () => {
    const { status, body } = await quote({ model: "sonora/speech", prompt: "Hello" });
    expect(status).toBe(200);
    expect(body.billing).toMatchObject({ pending: true, usd: 0, quota: 0 });
    expect(body.billing.lines).toEqual([
      { unit: "second", quantity: 0, unit_usd: 0.0011, usd: 0, parameters: {}, pending: true },
    ]);
    expect(body.input).toEqual({ voice: "standard", speed: 1, format: "mp3" });
  });

  test("the response carries the normalized input with defaults and mapped fields", async () => {
    const { body } = await quote({ model: "gpt-image-1", prompt: "p", image: url("a"), n: 2 });
    expect(body.input).toEqual({
      image_urls: [url("a")],
      n: 2,
      quality: "medium",
      size: "1024x1024",
      background: "auto",
      output_format: "png",
    });
    expect(body.billing.model).toBe("gpt-image-1");
  });

  test("the family ID quotes its default variant", async () => {
    const { body } = await quote({ model: "lumina-image", prompt: "p" });
    expect(body.billing.model).toBe("lumina-image-flare");
  });

  test("the account discount is applied and stated as a line", async () => {
    const discounted = await api.account({ discount: 0.2 });
    const { body } = await quote(
      { model: "lumina-image", prompt: "p", input: { n: 2 } },
      discounted.secret,
    );
    expect(body.billing.quota).toBe(36_000);
    expect(body.billing.usd).toBe(0.072);
    expect(
      body.billing.lines.map((line: { unit: string; usd: number }) => [line.unit, line.usd]),
    ).toEqual([
      ["image", 0.09],
      ["discount", -0.018],
    ]);
  });
});

const before = await accountState();

describe("bad input changes nothing", () => {
  test.each([
    ["unknown top-level field", { model: "gpt-image-1", prompt: "p", colour: "red" }, "colour"],
    ["wrong type of model", { model: 42, prompt: "p" }, "model"],
    ["input that is not an object", { model: "gpt-image-1", prompt: "p", input: [1] }, "input"],
    [
      "unknown input field",
      { model: "gpt-image-1", prompt: "p", input: { steps: 30 } },
      "input.steps",
    ],
    [
      "value outside the schema",
      { model: "lumina-image", prompt: "p", input: { resolution: "8K" } },
      "input.resolution",
    ],
    [
      "parameter of another model",
      { model: "lumina-image", prompt: "p", input: { quality: "high" } },
      "input.quality",
    ],
    [
      "http URL",
      { model: "lumina-image", prompt: "p", image: "http://img.example.com/a.png" },
      "not https",
    ],
    [
      "private-network URL",
      { model: "lumina-image", prompt: "p", image: "https://192.168.0.7/a.png" },
      "private",
    ],
    [
      "IPv4-compatible IPv6 loopback URL",
      { model: "lumina-image", prompt: "p", image: "https://[::127.0.0.1]/a.png" },
      "private",
    ],
    [
      "IPv4-translated IPv6 loopback URL",
      { model: "lumina-image", prompt: "p", image: "https://[::ffff:0:7f00:1]/a.png" },
      "private",
    ],
    [
      "metadata URL",
      {
        model: "crisp-upscale",
        operation: "upscale",
        input: { image_url: "https://169.254.169.254/latest" },
      },
      "private",
    ],
    [
      "loopback name",
      { model: "lumina-image", prompt: "p", image: "https://localhost/a.png" },
      "public",
    ],
    [
      "mask on a mode without one",
      { model: "lumina-image", prompt: "p", image: url("a"), mask: url("m") },
      "mask",
    ],
    [
      "duplicate references",
      { model: "gpt-image-1", prompt: "p", image: url("a"), input: { input_urls: [url("a")] } },
      "both",
    ],
    [
      "two segment-map sources",
      {
        model: "atlas-segment",
        operation: "segment-map",
        input: { image_url: url("a"), task_id: "t" },
      },
      "exactly one",
    ],
  ])("%s: 400 naming it", async (_name, body, mention) => {
    const { status, body: answer } = await quote(body);
    expect(status).toBe(400);
    expect(answer.error.type).toBe("invalid_request_error");
    expect(answer.error.message).toContain(mention);
  });

  test.each([
    ["unknown model", { model: "flux-ultra", prompt: "p" }, "model_not_found"],
    [
      "-edit appended to an ID",
      { model: "gpt-image-1-edit", prompt: "p", image: url("a") },
      "model_not_found",
    ],
    [
      "unsupported operation",
      { model: "gpt-image-1", operation: "upscale", prompt: "p" },
      "unsupported_operation",
    ],
    [
      "upscaler by attachment alone",
      { model: "crisp-upscale", image: url("a") },
      "unsupported_operation",
    ],
  ])("%s: 400 %s", async (_name, body, code) => {
    const { status, body: answer } = await quote(body);
    expect(status).toBe(400);
    expect(answer.error.code).toBe(code);
  });

  test("invalid JSON and a wrong content type are refused", async () => {
    const broken = await api.call("POST", "/v1/media/quote", {
      key: secret,
      rawBody: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as Body).error.code).toBe("invalid_request");
  });

  test("a body over 1 MiB answers 413, declared or chunked, even with a higher JSON limit", async () => {
    const roomy = await startTestApi({ MAX_JSON_BODY_BYTES: String(8 * 1024 * 1024) });
    const account = await roomy.account();
    const big = JSON.stringify({ model: "gpt-image-1", prompt: "x".repeat(1024 * 1024) });
    const declared = await roomy.call("POST", "/v1/media/quote", {
      key: account.secret,
      rawBody: big,
      headers: { "content-type": "application/json" },
    });
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as Body).error.code).toBe("payload_too_large");
    const chunked = await fetch(`${roomy.url}/v1/media/quote`, {
      method: "POST",
      headers: { authorization: `Bearer ${account.secret}`, "content-type": "application/json" },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(big));
          controller.close();
        },
      }),
    });
    expect(chunked.status).toBe(413);
    // Just under the limit is fine: the limit is the quote's, not lower.
    const padded = `${JSON.stringify({ model: "gpt-image-1", prompt: "p" })}${" ".repeat(1000 * 1000)}`;
    const fits = await roomy.call("POST", "/v1/media/quote", {
      key: account.secret,
      rawBody: padded,
      headers: { "content-type": "application/json" },
    });
    expect(fits.status).toBe(200);
  });

  test("no key 401, bad key 401", async () => {
    const none = await api.call("POST", "/v1/media/quote", {
      body: { model: "gpt-image-1", prompt: "p" },
    });
    expect(none.status).toBe(401);
    const bad = await api.call("POST", "/v1/media/quote", {
      key: "sk-wrong",
      body: { model: "gpt-image-1", prompt: "p" },
    });
    expect(bad.status).toBe(401);
  });

  test("a model outside the key's or the account's access is 403", async () => {
    const limitedKey = await api.account({ key: { model_limits: ["lumina-image"] } });
    const byKey = await quote({ model: "gpt-image-1", prompt: "p" }, limitedKey.secret);
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.code).toBe("model_not_allowed");
    expect(
      (await quote({ model: "lumina-image-sunburst", prompt: "p" }, limitedKey.secret)).status,
    ).toBe(200);
    const limitedAccount = await api.account();
    await api.admin("PATCH", `/admin/users/${limitedAccount.userId}`, {
      allowed_models: ["motion-video"],
    });
    const byAccount = await quote({ model: "gpt-image-1", prompt: "p" }, limitedAccount.secret);
    expect(byAccount.status).toBe(403);
  });

  test("a task ID in the input is never looked up: any ID quotes the same", async () => {
    const mine = await quote({
      model: "atlas-segment",
      operation: "segment-map",
      input: { task_id: "task_that_exists_maybe" },
    });
    const other = await quote({
      model: "atlas-segment",
      operation: "segment-map",
      input: { task_id: "x" },
    });
    expect(mine.body.billing).toEqual(other.body.billing);
  });

  test("after all of that, the account is exactly as before", async () => {
    for (const [call] of TABLE.slice(0, 5)) await quote(call);
    expect(await accountState()).toEqual(before);
  });
});
