// Proves POST /v1/messages/count_tokens (spec 4.9) counts locally with the model's
// tokenizer on every alias, takes x-api-key with a version header, refuses bad input
// with 400s that change nothing, and works from the official @anthropic-ai/sdk.
import { describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { countRequestTokens, loadProfile } from "@gw/tokens";
import { startTestApi } from "../../testing.ts";
import { COUNT_TOKENS_PATHS } from "./index.ts";

const api = await startTestApi();
const TEXT = "The quick brown fox jumps over the lazy dog.";
const request = { model: "lumen-chat", messages: [{ role: "user" as const, content: TEXT }] };

async function expected(profileId: string, body = request) {
  return countRequestTokens(await loadProfile(profileId), body);
}

async function post(path: string, body: unknown, headers: Record<string, string>) {
  const response = await api.call("POST", path, { body, headers });
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers of several shapes, read field by field
  return { status: response.status, body: (await response.json()) as any };
}

describe("POST /v1/messages/count_tokens", () => {
  test("every alias answers {input_tokens} by the model's tokenizer, without charging", async () => {
    const account = await api.account({ balanceUsd: 1 });
    const claude = await expected("anthropic/claude-sonnet-4.5");
    // By hand from the claude encoding: 6 + 2 + "user" + the text × 1.1.
    const { tokenizer } = await loadProfile("anthropic/claude-sonnet-4.5");
    expect(claude).toBe(8 + tokenizer.count("user") + Math.round(tokenizer.count(TEXT) * 1.1));
    for (const path of COUNT_TOKENS_PATHS) {
      const answer = await post(path, request, {
        "x-api-key": account.secret,
        "anthropic-version": "2023-06-01",
      });
      expect({ path, ...answer }).toEqual({ path, status: 200, body: { input_tokens: claude } });
    }
    const mini = await post(
      COUNT_TOKENS_PATHS[0],
      { ...request, model: "lumen-chat-mini" },
      { "x-api-key": account.secret, "msgcompat-version": "2023-06-01" },
    );
    expect(mini.body.input_tokens).toBe(
      await expected("openai/gpt-4o-mini", { ...request, model: "lumen-chat-mini" }),
    );
    // By hand from o200k_base: 6 + 3 + "user" + the text (no multiplier).
    const o200k = (await loadProfile("openai/gpt-4o-mini")).tokenizer;
    expect(mini.body.input_tokens).toBe(9 + o200k.count("user") + o200k.count(TEXT));
    const balance = await api.call("GET", "/v1/balance", { key: account.secret });
    expect(await balance.json()).toMatchObject({ balance: 1, total_spent: 0 });
  });

  test("Bearer works too; no key or a bad key is 401 before the body is read", async () => {
    const account = await api.account();
    const bearer = await post(COUNT_TOKENS_PATHS[0], request, {
      authorization: `Bearer ${account.secret}`,
    });
    expect(bearer.status).toBe(200);
    expect((await post(COUNT_TOKENS_PATHS[0], request, {})).status).toBe(401);
    const bad = await post(COUNT_TOKENS_PATHS[0], request, { "x-api-key": "sk-nope" });
    expect(bad).toMatchObject({ status: 401, body: { error: { code: "invalid_api_key" } } });
  });

  test("bad input is a 400 in the error shape", async () => {
    const account = await api.account();
    const headers = { "x-api-key": account.secret, "anthropic-version": "2023-06-01" };
    const cases: [unknown, string][] = [
      [{ messages: request.messages }, "model"],
      [{ model: "lumen-chat" }, "messages"],
      [{ model: "lumen-chat", messages: [] }, "messages"],
      [{ ...request, messages: [{ role: "system", content: "x" }] }, "messages"],
      [{ ...request, messages: [{ role: "user", content: 42 }] }, "messages"],
      [{ ...request, messages: [{ role: "user", content: [{ type: "video" }] }] }, "messages"],
      [{ ...request, surprise: true }, "surprise"],
      [{ ...request, tools: [{ name: "x" }] }, "tools"],
    ];
    for (const [body, field] of cases) {
      const answer = await post(COUNT_TOKENS_PATHS[0], body, headers);
      expect({ field, status: answer.status, code: answer.body.error?.code }).toEqual({
        field,
        status: 400,
        code: "invalid_request",
      });
      expect(answer.body.error.message).toContain(field);
    }
    const unknown = await post(COUNT_TOKENS_PATHS[0], { ...request, model: "nope" }, headers);
    expect(unknown).toMatchObject({ status: 400, body: { error: { code: "model_not_found" } } });
    const image = await post(COUNT_TOKENS_PATHS[0], { ...request, model: "gpt-image-1" }, headers);
    expect(image).toMatchObject({
      status: 400,
      body: { error: { code: "unsupported_operation" } },
    });
  });

  test("a model outside the key's limits is not found", async () => {
    const account = await api.account({ key: { model_limits: ["lumen-chat-mini"] } });
    const answer = await post(COUNT_TOKENS_PATHS[0], request, { "x-api-key": account.secret });
    expect(answer).toMatchObject({ status: 400, body: { error: { code: "model_not_found" } } });
  });

  test("the official SDK's messages.countTokens() works unchanged", async () => {
    const account = await api.account();
    const client = new Anthropic({ apiKey: account.secret, baseURL: api.url, maxRetries: 0 });
    const body = {
      model: "lumen-chat",
      system: "You are terse.",
      messages: [
        { role: "user" as const, content: TEXT },
        { role: "assistant" as const, content: "Noted." },
        { role: "user" as const, content: [{ type: "text" as const, text: "And again?" }] },
      ],
    };
    const counted = await client.messages.countTokens(body);
    expect(counted.input_tokens).toBe(await expected("anthropic/claude-sonnet-4.5", body as never));
    const prefixed = new Anthropic({
      apiKey: account.secret,
      baseURL: `${api.url}/msgcompat`,
      maxRetries: 0,
    });
    expect((await prefixed.messages.countTokens(body)).input_tokens).toBe(counted.input_tokens);
  });
});

describe("count_tokens limits", () => {
  test("the key + model + user window applies, per model", async () => {
    const limited = await startTestApi({ RATE_LIMIT_MODELS: "off", RATE_LIMIT_MODEL: "2/60s" });
    const account = await limited.account();
    const headers = { "x-api-key": account.secret, "anthropic-version": "2023-06-01" };
    const send = (model: string) =>
      limited.call("POST", COUNT_TOKENS_PATHS[0], { body: { ...request, model }, headers });
    expect((await send("lumen-chat")).status).toBe(200);
    expect((await send("lumen-chat")).status).toBe(200);
    const third = await send("lumen-chat");
    expect(third.status).toBe(429);
    expect(((await third.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    // Another model has its own window.
    expect((await send("lumen-chat-mini")).status).toBe(200);
  });
});
