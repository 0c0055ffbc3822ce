// Text calls against stub upstreams of each public format (issue 15): same-format calls
// pass every field through; cross-format calls translate text, system, tools and streams
// both ways, and refuse what does not translate with a 400 that holds nothing; the charge
// follows each API's own usage report (cache reads and writes included); upstream errors
// release the hold, and only failures that prove nothing started are retried.
import { afterAll, describe, expect, test } from "bun:test";
import { startAnthropicStub, startGeminiStub, startOpenAITextStub } from "@gw/providers/testing";
import { DEFAULT_CATALOG, textPriceQuota } from "@gw/tariffs";
import { startTestApi } from "../../testing.ts";

const openai = await startOpenAITextStub();
const anthropic = await startAnthropicStub();
const gemini = await startGeminiStub();
const api = await startTestApi({
  PROVIDER_ROUTES: "lumen-chat-mini=openai,lumen-chat=anthropic,lumen-reasoner=gemini",
  UPSTREAM_OPENAI_BASE_URL: openai.url,
  UPSTREAM_OPENAI_API_KEY: openai.apiKey,
  UPSTREAM_ANTHROPIC_BASE_URL: anthropic.url,
  UPSTREAM_ANTHROPIC_API_KEY: anthropic.apiKey,
  UPSTREAM_GEMINI_BASE_URL: gemini.url,
  UPSTREAM_GEMINI_API_KEY: gemini.apiKey,
  UPSTREAM_MAX_ATTEMPTS: "3",
});
afterAll(async () => {
  await Promise.all([openai.stop(), anthropic.stop(), gemini.stop()]);
});
const priceOf = (id: string) =>
  DEFAULT_CATALOG.models.find((model) => model.id === id)!.text_prices!;

// biome-ignore lint/suspicious/noExplicitAny: JSON answers of several public shapes
type Any = any;

async function post(
  path: string,
  key: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const response = await api.call("POST", path, { key, body, headers });
  const text = await response.text();
  let json: Any = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: response.status, json, text, headers: response.headers };
}

async function chargeOf(userId: string, count = 1) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const rows = await api.store.sql<
      {
        quota: bigint;
        prompt_tokens: number;
        completion_tokens: number;
        cache_read_tokens: number;
        cache_write_tokens: number;
      }[]
    >`select -delta_quota as quota, prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens
      from ledger_entries where user_id = ${BigInt(userId)} and kind = 'charge' order by id`;
    if (rows.length >= count) return rows;
    if (Date.now() > deadline) throw new Error(`expected ${count} charges, have ${rows.length}`);
    await Bun.sleep(25);
  }
}

async function untouched(userId: string, balance: bigint) {
  await Bun.sleep(100);
  const [row] = await api.store.sql<{ balance: bigint; entries: bigint; pending: bigint }[]>`
    select u.balance_quota as balance,
      (select count(*) from ledger_entries where user_id = u.id and kind <> 'credit') as entries,
      (select count(*) from holds where user_id = u.id and state = 'pending') as pending
    from users u where u.id = ${BigInt(userId)}`;
  expect(row).toEqual({ balance, entries: 0n, pending: 0n });
}

describe("same format: passed through", () => {
  test("chat to an OpenAI upstream: every field reaches it, the answer comes back as sent, charged by its usage", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 1 });
    openai.setUsage({ prompt_tokens: 1200, completion_tokens: 30, cached_tokens: 1000 });
    const answer = await post("/v1/chat/completions", secret, {
      model: "lumen-chat-mini",
      messages: [{ role: "user", content: "hello" }],
      logit_bias: { "50256": -100 },
      user: "end-user-7",
      seed: 3,
    });
    expect(answer.status).toBe(200);
    const sent = openai.requests.at(-1)!;
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.json).toMatchObject({ logit_bias: { "50256": -100 }, user: "end-user-7", seed: 3 });
    expect(sent.headers.authorization).toBe("[redacted]");
    expect(answer.json.object).toBe("chat.completion");
    expect(answer.json.model).toBe("lumen-chat-mini");
    expect(answer.json.usage.prompt_tokens).toBe(1200);
    const [charge] = await chargeOf(userId);
    // OpenAI's prompt_tokens include the cached ones: 200 fresh + 1000 read from cache.
    expect(charge).toMatchObject({
      prompt_tokens: 1200,
      completion_tokens: 30,
      cache_read_tokens: 1000,
      cache_write_tokens: 0,
    });
    expect(charge!.quota).toBe(
      textPriceQuota(priceOf("lumen-chat-mini"), {
        input: 200,
        output: 30,
        cacheRead: 1000,
        cacheWrite: 0,
      }),
    );
    // The provider reported ~1200 input against a local count of a few: the header says so.
    expect(Number(answer.headers.get("x-service-provider-prompt-tokens"))).toBeGreaterThan(1100);
    openai.setUsage({});
  });

  test("messages to an Anthropic upstream, with x-api-key: cache reads and writes are charged at their rates", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 1 });
    anthropic.setUsage({
      input_tokens: 50,
      output_tokens: 20,
      cache_read_input_tokens: 300,
      cache_creation_input_tokens: 40,
    });
    const response = await api.call("POST", "/v1/messages", {
      headers: { "x-api-key": secret, "anthropic-version": "2023-06-01" },
      body: {
        model: "lumen-chat",
        max_tokens: 100,
        messages: [{ role: "user", content: "hi" }],
        top_k: 5,
      },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Any;
    expect(body.type).toBe("message");
    expect(anthropic.requests.at(-1)!.json).toMatchObject({ top_k: 5, max_tokens: 100 });
    const [charge] = await chargeOf(userId);
    expect(charge).toMatchObject({
      prompt_tokens: 390,
      completion_tokens: 20,
      cache_read_tokens: 300,
      cache_write_tokens: 40,
    });
    expect(charge!.quota).toBe(
      textPriceQuota(priceOf("lumen-chat"), {
        input: 50,
        output: 20,
        cacheRead: 300,
        cacheWrite: 40,
      }),
    );
    anthropic.setUsage({});
  });
});

describe("cross format: translated", () => {
  test("a chat client on an Anthropic upstream: system, text and the answer translated; usage charged", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 1 });
    anthropic.setAnswer({ text: "Bonjour." });
    const answer = await post("/v1/chat/completions", secret, {
      model: "lumen-chat",
      messages: [
        { role: "system", content: "Answer in French." },
        { role: "user", content: "Hello" },
      ],
      max_tokens: 50,
      temperature: 0.2,
      stop: ["\n\n"],
    });
    expect(answer.status).toBe(200);
    const sent = anthropic.requests.at(-1)!;
    expect(sent.path).toBe("/v1/messages");
    expect(sent.json).toMatchObject({
      system: "Answer in French.",
      max_tokens: 50,
      temperature: 0.2,
      stop_sequences: ["\n\n"],
      messages: [{ role: "user" }],
    });
    expect(answer.json.object).toBe("chat.completion");
    expect(answer.json.choices[0].message.content).toBe("Bonjour.");
    await chargeOf(userId);
  });

  test("a messages client on an OpenAI upstream: tool definitions go over and the tool call comes back", async () => {
    const { secret } = await api.account({ balanceUsd: 1 });
    openai.setAnswer({
      text: "",
      toolCall: { id: "call_1", name: "get_weather", arguments: '{"city":"Oslo"}' },
    });
    const response = await api.call("POST", "/v1/messages", {
      headers: { "x-api-key": secret, "anthropic-version": "2023-06-01" },
      body: {
        model: "lumen-chat-mini",
        max_tokens: 100,
        tools: [
          {
            name: "get_weather",
            description: "Weather by city",
            input_schema: { type: "object", properties: { city: { type: "string" } } },
          },
        ],
        messages: [{ role: "user", content: "Weather in Oslo?" }],
      },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Any;
    const sent = openai.requests.at(-1)!.json as Any;
    expect(sent.tools[0]).toMatchObject({ type: "function", function: { name: "get_weather" } });
    expect(body.stop_reason).toBe("tool_use");
    expect(body.content.find((part: Any) => part.type === "tool_use")).toMatchObject({
      name: "get_weather",
      input: { city: "Oslo" },
    });
    openai.setAnswer({ text: "Hello from the stub.", toolCall: undefined as never });
  });

  test("a responses client on a Gemini upstream, streamed: events in the responses format, usage at the end", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 1 });
    gemini.setUsage({
      promptTokenCount: 80,
      candidatesTokenCount: 12,
      cachedContentTokenCount: 30,
    });
    const answer = await post("/v1/responses", secret, {
      model: "lumen-reasoner",
      input: "Hi",
      stream: true,
    });
    expect(answer.status).toBe(200);
    expect(gemini.requests.at(-1)!.path).toContain(":streamGenerateContent");
    const events = answer.text
      .split("\n\n")
      .filter((frame) => frame.startsWith("event: "))
      .map((frame) => frame.split("\n")[0]!.slice(7));
    expect(events[0]).toBe("response.created");
    expect(events).toContain("response.output_text.delta");
    expect(events.at(-1)).toBe("response.completed");
    const [charge] = await chargeOf(userId);
    // Gemini's promptTokenCount includes the cached tokens.
    expect(charge).toMatchObject({
      prompt_tokens: 80,
      completion_tokens: 12,
      cache_read_tokens: 30,
    });
    gemini.setUsage({});
  });

  test("what does not translate is refused with a 400 naming it, and nothing is held or sent", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 1 });
    const before = anthropic.requests.length;
    const refused = await post("/v1/chat/completions", secret, {
      model: "lumen-chat",
      messages: [{ role: "user", content: "hi" }],
      n: 2,
    });
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toMatch(/\bn\b/);
    expect(anthropic.requests.length).toBe(before);
    await untouched(userId, 500_000n);
  });
});

describe("the hold", () => {
  test("while the call runs the estimate is held (local input plus the output cap), then the charge replaces it", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 1 });
    const counted = await api.call("POST", "/v1/messages/count_tokens", {
      key: secret,
      body: { model: "lumen-chat-mini", messages: [{ role: "user", content: "hold me" }] },
    });
    const local = ((await counted.json()) as { input_tokens: number }).input_tokens;
    const seen = openai.requests.length;
    openai.script({ hang: true });
    const pending = post("/v1/chat/completions", secret, {
      model: "lumen-chat-mini",
      messages: [{ role: "user", content: "hold me" }],
      max_tokens: 1000,
    });
    while (openai.requests.length === seen) await Bun.sleep(10);
    const wallet = `${api.store.prefix}:{u:${userId}}:wallet`;
    const estimate = textPriceQuota(priceOf("lumen-chat-mini"), {
      input: local,
      output: 1000,
      cacheRead: 0,
      cacheWrite: 0,
    });
    expect(await api.store.redis.hget(wallet, "held")).toBe(String(estimate));
    // Another call of the same account is not blocked by it.
    expect(
      (
        await post("/v1/chat/completions", secret, {
          model: "lumen-chat-mini",
          messages: [{ role: "user", content: "x" }],
          max_tokens: 5,
        })
      ).status,
    ).toBe(200);
    openai.release();
    expect((await pending).status).toBe(200);
    await chargeOf(userId, 2);
    const deadline = Date.now() + 5_000;
    while ((await api.store.redis.hget(wallet, "held")) !== "0" && Date.now() < deadline)
      await Bun.sleep(20);
    expect(await api.store.redis.hget(wallet, "held")).toBe("0");
  });
});

describe("upstream failures", () => {
  test("a request the provider refuses is a 400 with its reason; nothing is charged", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 1 });
    openai.script({
      status: 400,
      body: {
        error: { message: "context_length_exceeded: too long", type: "invalid_request_error" },
      },
    });
    const answer = await post("/v1/chat/completions", secret, {
      model: "lumen-chat-mini",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(answer.status).toBe(400);
    expect(answer.json.error.message).toContain("context_length_exceeded");
    await untouched(userId, 500_000n);
  });

  test("503s before anything started are retried; a 500 is not, and answers 502", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 1 });
    let before = openai.requests.length;
    openai.script([{ status: 503 }, { status: 503 }]);
    const retried = await post("/v1/chat/completions", secret, {
      model: "lumen-chat-mini",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(retried.status).toBe(200);
    expect(openai.requests.length - before).toBe(3);
    before = openai.requests.length;
    openai.script({ status: 500 });
    const failed = await post("/v1/chat/completions", secret, {
      model: "lumen-chat-mini",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(failed.status).toBe(502);
    expect(openai.requests.length - before).toBe(1);
    expect(failed.text).not.toContain(openai.apiKey);
    expect((await chargeOf(userId)).length).toBe(1);
  });

  test("a stream cut by the upstream ends the client's stream; what came is charged once", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 1 });
    openai.script({ cutStream: true, afterFrames: 2 });
    const response = await api.call("POST", "/v1/chat/completions", {
      key: secret,
      body: { model: "lumen-chat-mini", messages: [{ role: "user", content: "hi" }], stream: true },
    });
    await response.text().catch(() => "");
    const charges = await chargeOf(userId);
    expect(charges.length).toBe(1);
    const [row] = await api.store.sql<{ pending: bigint }[]>`
      select count(*) as pending from holds where user_id = ${BigInt(userId)} and state = 'pending'`;
    expect(row!.pending).toBe(0n);
  });
});
