// Proves every model list of spec 4.8 answers in its own format, shows only what the
// account's access and the key's model limits admit, and handles unknown IDs, IDs with
// '/', empty lists and paging as the spec says; and that the media catalog is public.
import { describe, expect, test } from "bun:test";
import { startTestApi } from "../../testing.ts";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below
type Body = any;
const api = await startTestApi();
const open = await api.account();
const imagesOnly = await api.account({ key: { model_limits: ["lumina-image", "gpt-image-1"] } });
const accountLimited = await api.account();
await api.admin("PATCH", `/admin/users/${accountLimited.userId}`, {
  allowed_models: ["lumen-chat", "motion-video"],
});
// The key narrows the account further: only lumen-chat survives both lists.
const bothLimited = await api.account({ key: { model_limits: ["lumen-chat", "gpt-image-1"] } });
await api.admin("PATCH", `/admin/users/${bothLimited.userId}`, { allowed_models: ["lumen-chat"] });

async function get(path: string, key?: string, headers: Record<string, string> = {}) {
  const response = await api.call("GET", path, { key, headers });
  return { status: response.status, body: (await response.json()) as Body };
}
const ids = (entries: { id: string }[]) => entries.map((entry) => entry.id);

describe("GET /v1/models", () => {
  test("lists every callable ID, families and variants, with the fields of spec 2.8", async () => {
    const { status, body } = await get("/v1/models", open.secret);
    expect(status).toBe(200);
    expect(body.object).toBe("list");
    expect(ids(body.data)).toEqual([
      "lumina-image",
      "lumina-image-flare",
      "lumina-image-sunburst",
      "gpt-image-1",
      "atlas-segment",
      "crisp-upscale",
      "patch-edit",
      "sonora/speech",
      "sonora/music",
      "motion-video",
      "lumen-chat",
      "lumen-chat-mini",
      "lumen-reasoner",
    ]);
    const reasoner = body.data.find((entry: { id: string }) => entry.id === "lumen-reasoner");
    expect(reasoner).toEqual({
      id: "lumen-reasoner",
      object: "model",
      created: 1_761_955_200,
      owned_by: "lumen",
      supported_endpoint_types: ["openai", "msgcompat", "generate-content"],
      reasoning_supported: true,
      supported_reasoning_efforts: ["low", "medium", "high"],
      is_available: true,
      token_multiplier: 2,
    });
    // Efforts appear only when the modes are known.
    const chat = body.data.find((entry: { id: string }) => entry.id === "lumen-chat");
    expect(chat.reasoning_supported).toBe(false);
    expect("supported_reasoning_efforts" in chat).toBe(false);
  });

  test("respects the key's model limits, the account's access, and both at once", async () => {
    // A family ID in the key's list admits its variants.
    expect(ids((await get("/v1/models", imagesOnly.secret)).body.data)).toEqual([
      "lumina-image",
      "lumina-image-flare",
      "lumina-image-sunburst",
      "gpt-image-1",
    ]);
    expect(ids((await get("/v1/models", accountLimited.secret)).body.data)).toEqual([
      "motion-video",
      "lumen-chat",
    ]);
    expect(ids((await get("/v1/models", bothLimited.secret)).body.data)).toEqual(["lumen-chat"]);
  });

  test("x-api-key is accepted; no key or a bad key is 401", async () => {
    const byHeader = await get("/v1/models", undefined, { "x-api-key": open.secret });
    expect(byHeader.status).toBe(200);
    expect(byHeader.body.object).toBe("list");
    expect((await get("/v1/models")).status).toBe(401);
    expect((await get("/v1/models", "sk-nope")).body.error.code).toBe("invalid_api_key");
  });

  test("with a message-API version header it answers in that style", async () => {
    const { body } = await get("/v1/models", undefined, {
      "x-api-key": open.secret,
      "msgcompat-version": "2023-06-01",
    });
    expect(body.has_more).toBe(false);
    expect(ids(body.data)).toEqual(["lumen-chat", "lumen-chat-mini", "lumen-reasoner"]);
    expect(body).toMatchObject({ first_id: "lumen-chat", last_id: "lumen-reasoner" });
  });

  test("the OpenAI-format aliases answer the same list", async () => {
    const reference = (await get("/v1/models", imagesOnly.secret)).body;
    for (const path of [
      "/v1beta/openai/models",
      "/compatible/v1beta/openai/models",
      "/compatible/v1/models",
      "/compatible/models",
    ]) {
      const { status, body } = await get(path, imagesOnly.secret);
      expect(status).toBe(200);
      expect(body).toEqual(reference);
    }
  });
});

describe("GET /v1/models/{model}", () => {
  test("an exact ID answers its entry", async () => {
    const { status, body } = await get("/v1/models/gpt-image-1", open.secret);
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: "gpt-image-1", owned_by: "openai", is_available: true });
  });

  test("an unknown ID, or one outside the key's limits, is HTTP 200 with an error object", async () => {
    for (const [path, key] of [
      ["/v1/models/flux-ultra", open.secret],
      ["/v1/models/lumen-chat", imagesOnly.secret],
    ] as const) {
      const { status, body } = await get(path, key);
      expect(status).toBe(200);
      expect(body.error.code).toBe("model_not_found");
      expect(body.id).toBeUndefined();
    }
  });

  test("an ID with '/' is not read by path; the answer points to the full list", async () => {
    const { status, body } = await get("/v1/models/sonora/music", open.secret);
    expect(status).toBe(200);
    expect(body.error.code).toBe("model_not_found");
    expect(body.error.message).toContain("GET /v1/models");
    // Percent-encoded, the slash is part of one path segment, and the ID is found.
    expect((await get("/v1/models/sonora%2Fmusic", open.secret)).body.id).toBe("sonora/music");
    expect((await get("/v1/models/sonora/music")).status).toBe(401);
  });
});

describe("GET /v1/model-options", () => {
  test("families with their options and prices (spec 2.9)", async () => {
    const { status, body } = await get("/v1/model-options", open.secret);
    expect(status).toBe(200);
    const lumina = body.data.find(
      (entry: { model_id: string }) => entry.model_id === "lumina-image",
    );
    expect(lumina.display_name).toBe("Lumina Image");
    expect(
      lumina.options.map((option: { id: string; label: string }) => [option.id, option.label]),
    ).toEqual([
      ["lumina-image-flare", "Flare"],
      ["lumina-image-sunburst", "Sunburst"],
    ]);
    expect(lumina.options[0]).toMatchObject({
      pricing_mode: "per_image",
      image_output_price: 0.045,
    });
    expect(lumina.options[0].media_rates).toContainEqual({
      operation: "image-to-image",
      component: "rate",
      parameters: { resolution: "4K" },
      unit: "image",
      usd: 0.12,
    });
    const chat = body.data.find((entry: { model_id: string }) => entry.model_id === "lumen-chat");
    expect(chat.options).toEqual([
      {
        id: "lumen-chat",
        label: "Lumen Chat",
        pricing_mode: "tokens",
        input_price_per_m: 1.25,
        output_price_per_m: 10,
        cache_read_price_per_m: 0.125,
        cache_write_price_per_m: 1.5625,
      },
    ]);
    const video = body.data.find(
      (entry: { model_id: string }) => entry.model_id === "motion-video",
    );
    expect(video.options[0]).toMatchObject({
      pricing_mode: "per_second",
      video_price_per_second: 0.1,
      video_sound_price_per_second: 0.15,
    });
    const speech = body.data.find(
      (entry: { model_id: string }) => entry.model_id === "sonora/speech",
    );
    expect(speech.options[0].media_rates).toEqual([
      {
        operation: "text-to-speech",
        component: "rate",
        parameters: {},
        unit: "second",
        usd: 0.0011,
      },
    ]);
  });

  test("shows only the options the key may call", async () => {
    const { body } = await get("/v1/model-options", imagesOnly.secret);
    expect(body.data.map((entry: { model_id: string }) => entry.model_id)).toEqual([
      "lumina-image",
      "gpt-image-1",
    ]);
  });
});

describe("message-API-style lists", () => {
  test("/msgcompat/v1/models with x-api-key", async () => {
    const { status, body } = await get("/msgcompat/v1/models", undefined, {
      "x-api-key": open.secret,
    });
    expect(status).toBe(200);
    expect(body.data[0]).toEqual({
      type: "model",
      id: "lumen-chat",
      display_name: "Lumen Chat",
      created_at: "2025-11-01T00:00:00Z",
    });
    expect(body.has_more).toBe(false);
  });

  test("an empty list has no first_id or last_id", async () => {
    const { body } = await get("/msgcompat/v1/models", imagesOnly.secret);
    expect(body).toEqual({ data: [], has_more: false });
  });

  test("pages with limit and after_id", async () => {
    const first = (await get("/msgcompat/v1/models?limit=2", open.secret)).body;
    expect(first).toMatchObject({
      has_more: true,
      first_id: "lumen-chat",
      last_id: "lumen-chat-mini",
    });
    const second = (
      await get(`/msgcompat/v1/models?limit=2&after_id=${first.last_id}`, open.secret)
    ).body;
    expect(second).toEqual({
      data: [expect.objectContaining({ id: "lumen-reasoner" })],
      has_more: false,
      first_id: "lumen-reasoner",
      last_id: "lumen-reasoner",
    });
    expect((await get("/msgcompat/v1/models?limit=0", open.secret)).status).toBe(400);
  });

  test("one model, and 404 for a model that is not message-style", async () => {
    expect((await get("/msgcompat/v1/models/lumen-chat", open.secret)).body.id).toBe("lumen-chat");
    const missing = await get("/msgcompat/v1/models/gpt-image-1", open.secret);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
  });
});

describe("generate-content-style lists", () => {
  test("models and nextPageToken page through the list, on both prefixes", async () => {
    for (const prefix of ["/v1beta/models", "/compatible/v1beta/models"]) {
      const first = (await get(`${prefix}?pageSize=2`, open.secret)).body;
      expect(first.models.map((model: { baseModelId: string }) => model.baseModelId)).toEqual([
        "lumen-chat",
        "lumen-chat-mini",
      ]);
      expect(first.models[0]).toMatchObject({
        name: "models/lumen-chat",
        displayName: "Lumen Chat",
        inputTokenLimit: 200_000,
        supportedGenerationMethods: expect.arrayContaining(["generateContent"]),
      });
      const second = (
        await get(`${prefix}?pageSize=2&pageToken=${first.nextPageToken}`, open.secret)
      ).body;
      expect(second.models.map((model: { name: string }) => model.name)).toEqual([
        "models/lumen-reasoner",
      ]);
      expect(second.nextPageToken).toBeUndefined();
    }
  });

  test("the key may come as x-goog-api-key or ?key=; a forged page token is 400", async () => {
    expect((await get("/v1beta/models", undefined, { "x-goog-api-key": open.secret })).status).toBe(
      200,
    );
    expect((await get(`/v1beta/models?key=${open.secret}`)).status).toBe(200);
    expect((await get("/v1beta/models")).status).toBe(401);
    expect((await get("/v1beta/models?pageToken=abc", open.secret)).status).toBe(400);
  });

  test("/compatible/v1beta/models/{model} answers the spec 2.8 entry", async () => {
    const { body } = await get("/compatible/v1beta/models/lumen-chat", open.secret);
    expect(body).toMatchObject({ id: "lumen-chat", object: "model", owned_by: "lumen" });
    const unknown = await get("/compatible/v1beta/models/flux-ultra", open.secret);
    expect(unknown.status).toBe(200);
    expect(unknown.body.error.code).toBe("model_not_found");
  });
});

describe("GET /v1/media/models", () => {
  test("needs no key and publishes operations, input schemas and tariffs", async () => {
    const { status, body } = await get("/v1/media/models");
    expect(status).toBe(200);
    expect(body.data.every((entry: { kind: string }) => entry.kind !== "text")).toBe(true);
    const gpt = body.data.find((entry: { id: string }) => entry.id === "gpt-image-1");
    expect(gpt.operations).toEqual(["generate", "image-edit"]);
    expect(gpt.default_operation).toBe("generate");
    const edit = gpt.input_schemas["image-edit"];
    expect(edit.additionalProperties).toBe(false);
    expect(edit.required).toEqual(["image_urls"]);
    expect(edit.properties.image_urls.maxItems).toBe(16);
    expect(edit.properties.quality.default).toBe("medium");
    expect(gpt.operation_details["image-edit"].mask_field).toBe("mask_url");
    expect(gpt.tariff.rates).toContainEqual({
      operation: "image-edit",
      component: "surcharge",
      unit: "input_image",
      usd: 0.01,
      parameters: { fields: "image_urls,input_urls" },
    });
    const segment = body.data.find((entry: { id: string }) => entry.id === "atlas-segment");
    expect(segment.operations).toEqual(["segment-map"]);
    const lumina = body.data.find((entry: { id: string }) => entry.id === "lumina-image");
    expect(lumina.variants).toEqual([
      { id: "lumina-image-flare", label: "Flare" },
      { id: "lumina-image-sunburst", label: "Sunburst" },
    ]);
    expect(lumina.operation_details["image-to-image"].mask_field).toBeNull();
  });

  test("with a key it lists what that key may call; a bad key is 401", async () => {
    const { body } = await get("/v1/media/models", imagesOnly.secret);
    expect(ids(body.data)).toEqual([
      "lumina-image",
      "lumina-image-flare",
      "lumina-image-sunburst",
      "gpt-image-1",
    ]);
    const byHeader = await get("/v1/media/models", undefined, { "x-api-key": imagesOnly.secret });
    expect(ids(byHeader.body.data)).toEqual(ids(body.data));
    const bad = await get("/v1/media/models", "sk-nope");
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe("invalid_api_key");
  });
});
