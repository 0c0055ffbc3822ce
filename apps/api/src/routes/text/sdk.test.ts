// The official clients work unchanged against the text endpoints (issue 15): openai
// (chat.completions and responses, streamed too), @anthropic-ai/sdk (messages.create and
// messages.stream) and @google/genai (generateContent and generateContentStream), here on
// the offline provider, every call charged once.
import { expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { startTestApi } from "../../testing.ts";

const api = await startTestApi();
const { secret, userId } = await api.account({ balanceUsd: 5 });
const openai = new OpenAI({ apiKey: secret, baseURL: `${api.url}/v1`, maxRetries: 0 });
const anthropic = new Anthropic({ apiKey: secret, baseURL: api.url, maxRetries: 0 });
// Both the client's defaults (it then calls /v1/models/...) and the API's own /v1beta paths.
const google = new GoogleGenAI({ apiKey: secret, httpOptions: { baseUrl: api.url } });
const googleBeta = new GoogleGenAI({
  apiKey: secret,
  httpOptions: { baseUrl: `${api.url}/compatible`, apiVersion: "v1beta" },
});

test("openai: chat.completions.create, plain and streamed", async () => {
  const completion = await openai.chat.completions.create({
    model: "lumen-chat-mini",
    messages: [{ role: "user", content: "Say something short." }],
    max_tokens: 32,
  });
  expect(completion.choices[0]?.message.content?.length).toBeGreaterThan(0);
  expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
  const stream = await openai.chat.completions.create({
    model: "lumen-chat-mini",
    messages: [{ role: "user", content: "Say something short." }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = "";
  let usage: OpenAI.CompletionUsage | undefined | null;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? "";
    if (chunk.usage) usage = chunk.usage;
  }
  expect(text.length).toBeGreaterThan(0);
  expect(usage?.completion_tokens).toBeGreaterThan(0);
});

test("openai: responses.create, plain and streamed", async () => {
  const response = await openai.responses.create({ model: "lumen-chat", input: "Hello!" });
  expect(response.output_text.length).toBeGreaterThan(0);
  expect(response.usage?.input_tokens).toBeGreaterThan(0);
  const stream = await openai.responses.create({
    model: "lumen-chat",
    input: "Hello!",
    stream: true,
  });
  const types: string[] = [];
  for await (const event of stream) types.push(event.type);
  expect(types[0]).toBe("response.created");
  expect(types).toContain("response.output_text.delta");
  expect(types.at(-1)).toBe("response.completed");
});

test("anthropic: messages.create and messages.stream", async () => {
  const message = await anthropic.messages.create({
    model: "lumen-chat",
    max_tokens: 64,
    messages: [{ role: "user", content: "Hi there" }],
  });
  expect(message.content[0]?.type).toBe("text");
  expect(message.usage.input_tokens).toBeGreaterThan(0);
  const stream = anthropic.messages.stream({
    model: "lumen-chat",
    max_tokens: 64,
    messages: [{ role: "user", content: "Hi there" }],
  });
  const final = await stream.finalMessage();
  expect(final.stop_reason).toBe("end_turn");
  expect(final.usage.output_tokens).toBeGreaterThan(0);
});

test("google: generateContent and generateContentStream", async () => {
  const answer = await google.models.generateContent({
    model: "lumen-reasoner",
    contents: "Write one line.",
  });
  expect(answer.text?.length).toBeGreaterThan(0);
  expect(answer.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
  const stream = await googleBeta.models.generateContentStream({
    model: "lumen-reasoner",
    contents: "Write one line.",
  });
  let text = "";
  for await (const chunk of stream) text += chunk.text ?? "";
  expect(text.length).toBeGreaterThan(0);
});

test("every SDK call above was charged once", async () => {
  const deadline = Date.now() + 5_000;
  let charges = 0n;
  while (Date.now() < deadline) {
    const [row] = await api.store.sql<{ charges: bigint }[]>`
      select count(*) as charges from ledger_entries where user_id = ${BigInt(userId)} and kind = 'charge'`;
    charges = row!.charges;
    if (charges === 8n) break;
    await Bun.sleep(50);
  }
  expect(charges).toBe(8n);
});
