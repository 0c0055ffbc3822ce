// The text endpoints on the offline provider (issue 15): each format answers in its own
// public shape, streamed and not; the charge is the reported usage at the model's rates
// (cache tokens and the discount included), posted once after the answer; the estimate
// is held and let go; an upstream failure charges nothing; the prompt-overhead header and
// SSE comment of spec 4.11 follow every rule.
import { describe, expect, test } from "bun:test";
import { journalKey } from "@gw/ledger";
import { DEFAULT_CATALOG, textPriceQuota } from "@gw/tariffs";
import { startTestApi } from "../../testing.ts";

const api = await startTestApi();
const prices = DEFAULT_CATALOG.models.find((model) => model.id === "lumen-chat")!.text_prices!;

interface Charge {
  quota: bigint;
  prompt_tokens: number;
  completion_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  is_stream: boolean;
  other: Record<string, unknown>;
  request_id: string;
}

async function chargesOf(userId: string): Promise<Charge[]> {
  return api.store.sql<Charge[]>`
    select -delta_quota as quota, prompt_tokens, completion_tokens, cache_read_tokens,
           cache_write_tokens, is_stream, other, request_id
    from ledger_entries where user_id = ${BigInt(userId)} and kind = 'charge' order by id`;
}

async function until<T>(
  what: string,
  read: () => Promise<T | null>,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

async function settledState(userId: string) {
  const [row] = await api.store.sql<{ balance: bigint; pending: bigint; drift: bigint }[]>`
    select u.balance_quota as balance,
           (select count(*) from holds where user_id = u.id and state = 'pending') as pending,
           (u.balance_quota - (select coalesce(sum(delta_quota), 0) from ledger_entries where user_id = u.id))::bigint as drift
    from users u where u.id = ${BigInt(userId)}`;
  const held = await api.store.redis.hget(`${api.store.prefix}:{u:${userId}}:wallet`, "held");
  return { ...row!, held: held ?? "0" };
}

const chat = (key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  api.call("POST", "/v1/chat/completions", {
    key,
    headers,
    body: { model: "lumen-chat", ...body },
  });

async function localCount(content: string): Promise<number> {
  const response = await api.call("POST", "/v1/messages/count_tokens", {
    key: (await api.account()).secret,
    body: { model: "lumen-chat", messages: [{ role: "user", content }] },
  });
  return ((await response.json()) as { input_tokens: number }).input_tokens;
}

async function sseEvents(response: Response): Promise<string[]> {
  const text = await response.text();
  return text.split("\n\n").filter((frame) => frame.trim() !== "");
}

describe("chat completions", () => {
  test("answers a chat.completion with usage; the charge is that usage at the model's rates, posted once", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 1 });
    const response = await chat(secret, {
      messages: [
        {
          role: "user",
          content: "Name three colours. [offline:cache-read=40] [offline:cache-write=8]",
        },
      ],
      max_tokens: 50,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      object: string;
      model: string;
      choices: { message: { role: string; content: string }; finish_reason: string }[];
      usage: {
        prompt_tokens: number;
        completion_tokens: number;
        prompt_tokens_details?: { cached_tokens?: number };
      };
    };
    expect(body.object).toBe("chat.completion");
    expect(body.model).toBe("lumen-chat");
    expect(body.choices[0]!.message.role).toBe("assistant");
    expect(body.choices[0]!.message.content.length).toBeGreaterThan(0);
    const [charge] = await until("the charge", async () => {
      const rows = await chargesOf(userId);
      return rows.length > 0 ? rows : null;
    });
    expect(charge!.prompt_tokens).toBe(body.usage.prompt_tokens);
    expect(charge!.completion_tokens).toBe(body.usage.completion_tokens);
    expect(charge!.cache_read_tokens).toBe(40);
    expect(charge!.cache_write_tokens).toBe(8);
    const fresh = charge!.prompt_tokens - 40 - 8;
    expect(charge!.quota).toBe(
      textPriceQuota(prices, {
        input: fresh,
        output: charge!.completion_tokens,
        cacheRead: 40,
        cacheWrite: 8,
      }),
    );
    expect(charge!.other.estimated_prompt_tokens).toBe(fresh);
    expect(charge!.request_id).toBe(response.headers.get("x-request-id")!);
    const state = await settledState(userId);
    expect(state).toEqual({ balance: 500_000n - charge!.quota, pending: 0n, drift: 0n, held: "0" });
    expect((await chargesOf(userId)).length).toBe(1);
    // Owed in the journal before the answer, forgotten once posted.
    await until("the journal emptied", async () =>
      (await api.store.redis.xlen(journalKey(api.store.prefix))) === 0 ? true : null,
    );
  });

  test("the account discount applies to the exact total", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 1, discount: 0.25 });
    const response = await chat(secret, { messages: [{ role: "user", content: "hello there" }] });
    expect(response.status).toBe(200);
    const [charge] = await until("the charge", async () => {
      const rows = await chargesOf(userId);
      return rows.length > 0 ? rows : null;
    });
    expect(charge!.quota).toBe(
      textPriceQuota(
        prices,
        {
          input: charge!.prompt_tokens,
          output: charge!.completion_tokens,
          cacheRead: 0,
          cacheWrite: 0,
        },
        250_000,
      ),
    );
  });

  test("streamed: chunks, the usage chunk only when asked, then [DONE]; charged as streamed", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 1 });
    const plain = await chat(secret, {
      messages: [{ role: "user", content: "stream it" }],
      stream: true,
    });
    expect(plain.headers.get("content-type")).toStartWith("text/event-stream");
    const frames = await sseEvents(plain);
    expect(frames.at(-1)).toBe("data: [DONE]");
    const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame.replace(/^data: /, "")));
    expect(chunks.every((chunk) => chunk.object === "chat.completion.chunk")).toBe(true);
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);
    const asked = await chat(secret, {
      messages: [{ role: "user", content: "stream it" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const withUsage = (await sseEvents(asked))
      .slice(0, -1)
      .map((frame) => JSON.parse(frame.replace(/^data: /, "")));
    expect(withUsage.at(-1).choices).toEqual([]);
    expect(withUsage.at(-1).usage.prompt_tokens).toBeGreaterThan(0);
    const charges = await until("two charges", async () => {
      const rows = await chargesOf(userId);
      return rows.length === 2 ? rows : null;
    });
    expect(charges.every((charge) => charge.is_stream)).toBe(true);
    expect(charges[1]!.prompt_tokens).toBe(withUsage.at(-1).usage.prompt_tokens);
  });

  test("an upstream failure answers 502 and charges nothing; the hold is let go", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 1 });
    const response = await chat(secret, {
      messages: [{ role: "user", content: "[offline:fail] hi" }],
    });
    expect(response.status).toBe(502);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      "upstream_error",
    );
    await Bun.sleep(100);
    expect(await chargesOf(userId)).toEqual([]);
    expect(await settledState(userId)).toEqual({
      balance: 500_000n,
      pending: 0n,
      drift: 0n,
      held: "0",
    });
  });

  test("a call whose estimate the wallet cannot cover is refused 402 before anything is held", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 0.01 });
    // 16,384 output tokens at $10/M hold $0.16.
    const response = await chat(secret, {
      messages: [{ role: "user", content: "hi" }],
      max_tokens: 16_384,
    });
    expect(response.status).toBe(402);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
      "max_tokens",
    );
    expect(await settledState(userId)).toEqual({
      balance: 5_000n,
      pending: 0n,
      drift: 0n,
      held: "0",
    });
    // A smaller cap fits, and the estimate never blocks a second call meanwhile.
    const [one, two] = await Promise.all([
      chat(secret, { messages: [{ role: "user", content: "hi" }], max_tokens: 100 }),
      chat(secret, { messages: [{ role: "user", content: "hi" }], max_tokens: 100 }),
    ]);
    expect([one.status, two.status]).toEqual([200, 200]);
  });

  test("bad input is a 400 that holds nothing: wrong types, unknown model, a cap above the model's", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 1 });
    const answers = await Promise.all([
      chat(secret, { messages: "not a list" }),
      chat(secret, { model: "no-such-model", messages: [{ role: "user", content: "hi" }] }),
      chat(secret, { model: "lumina-image", messages: [{ role: "user", content: "hi" }] }),
      chat(secret, { messages: [{ role: "user", content: "hi" }], max_tokens: 10_000_000 }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 400, 400]);
    expect(await settledState(userId)).toEqual({
      balance: 500_000n,
      pending: 0n,
      drift: 0n,
      held: "0",
    });
  });
});

describe("prompt overhead (spec 4.11)", () => {
  const content = "Tell me about lighthouses.";
  const header = (response: Response) => response.headers.get("x-service-provider-prompt-tokens");

  test("200 over is not enough; 201 over is, when above 30% of the reported input", async () => {
    const { secret } = await api.account({ balanceUsd: 1 });
    const at200 = await chat(secret, {
      messages: [{ role: "user", content: `${content} [offline:prompt-overhead=200]` }],
    });
    expect(header(at200)).toBeNull();
    const at201 = await chat(secret, {
      messages: [{ role: "user", content: `${content} [offline:prompt-overhead=201]` }],
    });
    expect(header(at201)).toBe("201");
    const local = await localCount(`${content} [offline:prompt-overhead=201]`);
    const usage = ((await at201.json()) as { usage: { prompt_tokens: number } }).usage;
    expect(usage.prompt_tokens).toBe(local + 201);
  });

  test("exactly 30% of the reported input is not enough; just over is", async () => {
    const { secret } = await api.account({ balanceUsd: 1 });
    // d is exactly 30% of the reported input (local + d) when 7d = 3·local: find a prompt
    // whose local count (marker digits included) is a multiple of 7.
    let words = 1200;
    let local = 0;
    const prompt = (n: number, d: string) =>
      `${"word ".repeat(n)}end [offline:prompt-overhead=${d}]`;
    for (; ; words++) {
      local = await localCount(prompt(words, "000"));
      if (local % 7 === 0) break;
    }
    const exact = (3 * local) / 7;
    expect(exact).toBeGreaterThan(200);
    const pad = (n: number) => String(n).padStart(3, "0");
    const atThirty = await chat(secret, {
      messages: [{ role: "user", content: prompt(words, pad(exact)) }],
    });
    const reported = ((await atThirty.json()) as { usage: { prompt_tokens: number } }).usage
      .prompt_tokens;
    expect((reported - local) * 10).toBe(reported * 3);
    expect(header(atThirty)).toBeNull();
    const over = await chat(secret, {
      messages: [{ role: "user", content: prompt(words, pad(exact + 1)) }],
    });
    expect(header(over)).toBe(String(exact + 1));
  });

  test("a request with an image never carries it, whatever the difference", async () => {
    const { secret } = await api.account({ balanceUsd: 1 });
    const response = await chat(secret, {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: `${content} [offline:prompt-overhead=5000]` },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          ],
        },
      ],
    });
    expect(response.status).toBe(200);
    expect(header(response)).toBeNull();
  });

  test("streams carry it as an SSE comment just before the end event; generate-content never", async () => {
    const { secret } = await api.account({ balanceUsd: 1 });
    const prompt = `${content} [offline:prompt-overhead=900]`;
    const chatFrames = await sseEvents(
      await chat(secret, { messages: [{ role: "user", content: prompt }], stream: true }),
    );
    expect(chatFrames.slice(-2)).toEqual([
      ": x-service-provider-prompt-tokens=900",
      "data: [DONE]",
    ]);
    const messages = await api.call("POST", "/v1/messages", {
      headers: { "x-api-key": secret, "anthropic-version": "2023-06-01" },
      body: {
        model: "lumen-chat",
        max_tokens: 64,
        stream: true,
        messages: [{ role: "user", content: prompt }],
      },
    });
    const messageFrames = await sseEvents(messages);
    const stop = messageFrames.findIndex((frame) => frame.startsWith("event: message_stop"));
    expect(messageFrames[stop - 1]).toBe(": x-service-provider-prompt-tokens=900");
    const responses = await api.call("POST", "/v1/responses", {
      key: secret,
      body: { model: "lumen-chat", stream: true, input: prompt },
    });
    const responseFrames = await sseEvents(responses);
    const completed = responseFrames.findIndex((frame) =>
      frame.startsWith("event: response.completed"),
    );
    expect(responseFrames[completed - 1]).toBe(": x-service-provider-prompt-tokens=900");
    const gemini = await api.call(
      "POST",
      "/v1beta/models/lumen-chat:streamGenerateContent?alt=sse",
      {
        headers: { "x-goog-api-key": secret },
        body: { contents: [{ role: "user", parts: [{ text: prompt }] }] },
      },
    );
    expect(gemini.status).toBe(200);
    const geminiText = await gemini.text();
    expect(geminiText).toContain("usageMetadata");
    expect(geminiText).not.toContain("x-service-provider-prompt-tokens");
    // Non-streamed generate-content answers carry the header as every format does.
    const whole = await api.call("POST", "/v1beta/models/lumen-chat:generateContent", {
      headers: { "x-goog-api-key": secret },
      body: { contents: [{ role: "user", parts: [{ text: prompt }] }] },
    });
    expect(header(whole)).toBe("900");
  });

  test("the key log's other carries the estimate always, and the excess whenever there is one", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 1 });
    await chat(secret, {
      messages: [{ role: "user", content: `${content} [offline:prompt-overhead=7]` }],
    });
    const [charge] = await until("the charge", async () => {
      const rows = await chargesOf(userId);
      return rows.length > 0 ? rows : null;
    });
    expect(charge!.other.provider_prompt_overhead_tokens).toBe(7);
    expect(charge!.other.estimated_prompt_tokens).toBe(charge!.prompt_tokens - 7);
    const log = await api.call("GET", "/api/log/token", { key: secret });
    const records = ((await log.json()) as { data: { other: string }[] }).data;
    expect(JSON.parse(records[0]!.other)).toMatchObject({
      estimated_prompt_tokens: charge!.prompt_tokens - 7,
      provider_prompt_overhead_tokens: 7,
    });
  });
});

describe("a client that disconnects mid-stream", () => {
  test("the upstream is cancelled and the call is charged for what was generated", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 1 });
    const controller = new AbortController();
    const response = await fetch(`${api.url}/v1/chat/completions`, {
      method: "POST",
      signal: controller.signal,
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "lumen-chat",
        stream: true,
        max_tokens: 4000,
        messages: [{ role: "user", content: "a very long story [offline:slow]" }],
      }),
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    const [charge] = await until("the charge of the cut stream", async () => {
      const rows = await chargesOf(userId);
      return rows.length > 0 ? rows : null;
    });
    expect(charge!.other.client_disconnected).toBe(true);
    expect(charge!.quota).toBeGreaterThan(0n);
    expect(await settledState(userId)).toMatchObject({ pending: 0n, drift: 0n, held: "0" });
  });
});

describe("under load", () => {
  test("200 concurrent calls of one account: 200 answers, 200 charges, one per hold, wallet equals its ledger", async () => {
    const { secret, userId } = await api.account({ balanceUsd: 5 });
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        chat(secret, {
          messages: [{ role: "user", content: `call ${index}` }],
          max_tokens: 20,
        }).then((response) => response.status),
      ),
    );
    expect(answers.filter((status) => status === 200).length).toBe(200);
    const charges = await until("200 charges", async () => {
      const rows = await chargesOf(userId);
      return rows.length >= 200 ? rows : null;
    });
    expect(charges.length).toBe(200);
    const [holds] = await api.store.sql<{ posted: bigint; distinct: bigint }[]>`
      select count(*) filter (where state = 'posted') as posted, count(distinct id) as distinct
      from holds where user_id = ${BigInt(userId)}`;
    expect(holds).toEqual({ posted: 200n, distinct: 200n });
    const spent = charges.reduce((sum, charge) => sum + charge.quota, 0n);
    expect(await settledState(userId)).toEqual({
      balance: 2_500_000n - spent,
      pending: 0n,
      drift: 0n,
      held: "0",
    });
  });
});
