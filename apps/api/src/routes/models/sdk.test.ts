// Proves the official SDKs work unchanged against the gateway's model lists: openai's
// models.list()/retrieve(), @anthropic-ai/sdk's models.list() (by its own prefix and by
// /v1/models with x-api-key), and @google/genai's paged models.list().
import { describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { startTestApi } from "../../testing.ts";

const api = await startTestApi();
const { secret } = await api.account();
const TEXT_MODELS = ["lumen-chat", "lumen-chat-mini", "lumen-reasoner"];

describe("openai package", () => {
  const client = new OpenAI({ apiKey: secret, baseURL: `${api.url}/v1`, maxRetries: 0 });

  test("models.list() yields every model with its catalog fields", async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toContain("gpt-image-1");
    expect(ids).toContain("sonora/music");
    expect(ids).toEqual(expect.arrayContaining(TEXT_MODELS));
  });

  test("models.retrieve() reads one model; an unknown one comes back as an error object", async () => {
    const model = await client.models.retrieve("lumen-reasoner");
    expect(model).toMatchObject({
      id: "lumen-reasoner",
      object: "model",
      owned_by: "lumen",
      supported_reasoning_efforts: ["low", "medium", "high"],
    });
    const unknown = (await client.models.retrieve("no-such-model")) as unknown as {
      error: { code: string };
    };
    expect(unknown.error.code).toBe("model_not_found");
  });

  test("a wrong key is an AuthenticationError", async () => {
    const wrong = new OpenAI({ apiKey: "sk-wrong", baseURL: `${api.url}/v1`, maxRetries: 0 });
    const error = await wrong.models.list().then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});

describe("@anthropic-ai/sdk package", () => {
  test("models.list() through the message-style prefix", async () => {
    const client = new Anthropic({
      apiKey: secret,
      baseURL: `${api.url}/msgcompat`,
      maxRetries: 0,
    });
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models.map((model) => model.id)).toEqual(TEXT_MODELS);
    expect(models[0]).toMatchObject({ type: "model", display_name: "Lumen Chat" });
    expect(models[0]!.created_at).toBe("2025-11-01T00:00:00Z");
  });

  test("models.list() at the root: /v1/models with x-api-key answers in its style", async () => {
    const client = new Anthropic({ apiKey: secret, baseURL: api.url, maxRetries: 0 });
    const page = await client.models.list({ limit: 2 });
    expect(page.data.map((model) => model.id)).toEqual(TEXT_MODELS.slice(0, 2));
    const all = [];
    for await (const model of client.models.list({ limit: 2 })) all.push(model.id);
    expect(all).toEqual(TEXT_MODELS);
  });

  test("models.retrieve() of one model", async () => {
    const client = new Anthropic({
      apiKey: secret,
      baseURL: `${api.url}/msgcompat`,
      maxRetries: 0,
    });
    expect((await client.models.retrieve("lumen-chat-mini")).display_name).toBe("Lumen Chat Mini");
    const error = await client.models.retrieve("gpt-image-1").then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
  });
});

describe("@google/genai package", () => {
  // Default settings call {baseUrl}/v1/models; apiVersion "v1beta" calls /v1beta/models,
  // and the /compatible prefix serves the same list.
  const clients = {
    default: () => new GoogleGenAI({ apiKey: secret, httpOptions: { baseUrl: api.url } }),
    v1beta: () =>
      new GoogleGenAI({ apiKey: secret, httpOptions: { baseUrl: api.url, apiVersion: "v1beta" } }),
    compatible: () =>
      new GoogleGenAI({
        apiKey: secret,
        httpOptions: { baseUrl: `${api.url}/compatible`, apiVersion: "v1beta" },
      }),
  };

  test.each(Object.keys(clients))("models.list() follows nextPageToken (%s)", async (name) => {
    const ai = clients[name as keyof typeof clients]();
    const pager = await ai.models.list({ config: { pageSize: 2 } });
    expect(pager.page.map((model) => model.name)).toEqual([
      "models/lumen-chat",
      "models/lumen-chat-mini",
    ]);
    const names: string[] = [];
    for await (const model of pager) names.push(model.name!);
    expect(names).toEqual(TEXT_MODELS.map((id) => `models/${id}`));
  });

  test.each(["default", "v1beta"])("models.get() of one model (%s)", async (name) => {
    const ai = clients[name as keyof typeof clients]();
    const model = await ai.models.get({ model: "lumen-chat" });
    expect(model.name).toBe("models/lumen-chat");
    expect(model.inputTokenLimit).toBe(200_000);
  });
});
