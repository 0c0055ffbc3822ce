// Every text endpoint against every upstream format (issue 15), streamed and not: a chat,
// responses, messages or generate-content client on an OpenAI, Anthropic or Gemini stub
// gets an answer in its own format with the upstream's text and usage, and each call is
// charged once by that usage.
import { afterAll, expect, test } from "bun:test";
import { startAnthropicStub, startGeminiStub, startOpenAITextStub } from "@gw/providers/testing";
import { createStreamParser, readResult, type TextFormat } from "@gw/textformats";
import { startTestApi } from "../../testing.ts";

const openai = await startOpenAITextStub({ answer: { text: "From the upstream." } });
const anthropic = await startAnthropicStub({ answer: { text: "From the upstream." } });
const gemini = await startGeminiStub({ answer: { text: "From the upstream." } });
const api = await startTestApi({
  PROVIDER_ROUTES: "lumen-chat-mini=openai,lumen-chat=anthropic,lumen-reasoner=gemini",
  UPSTREAM_OPENAI_BASE_URL: openai.url,
  UPSTREAM_OPENAI_API_KEY: openai.apiKey,
  UPSTREAM_ANTHROPIC_BASE_URL: anthropic.url,
  UPSTREAM_ANTHROPIC_API_KEY: anthropic.apiKey,
  UPSTREAM_GEMINI_BASE_URL: gemini.url,
  UPSTREAM_GEMINI_API_KEY: gemini.apiKey,
});
afterAll(async () => {
  await Promise.all([openai.stop(), anthropic.stop(), gemini.stop()]);
});
const { secret, userId } = await api.account({ balanceUsd: 5 });

const MODELS = { openai: "lumen-chat-mini", anthropic: "lumen-chat", gemini: "lumen-reasoner" };

function request(format: TextFormat, model: string, stream: boolean) {
  const headers = { authorization: `Bearer ${secret}`, "content-type": "application/json" };
  switch (format) {
    case "chat":
      return {
        path: "/v1/chat/completions",
        headers,
        body: { model, stream, max_tokens: 50, messages: [{ role: "user", content: "Hello" }] },
      };
    case "responses":
      return {
        path: "/v1/responses",
        headers,
        body: { model, stream, max_output_tokens: 50, input: "Hello" },
      };
    case "messages":
      return {
        path: "/v1/messages",
        headers,
        body: { model, stream, max_tokens: 50, messages: [{ role: "user", content: "Hello" }] },
      };
    default:
      return {
        path: `/v1beta/models/${model}:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`,
        headers,
        body: {
          contents: [{ role: "user", parts: [{ text: "Hello" }] }],
          generationConfig: { maxOutputTokens: 50 },
        },
      };
  }
}

let calls = 0;
for (const format of ["chat", "responses", "messages", "generateContent"] as const)
  for (const [upstream, model] of Object.entries(MODELS))
    for (const stream of [false, true])
      test(`${format} client, ${upstream} upstream, ${stream ? "streamed" : "whole"}`, async () => {
        const call = request(format, model, stream);
        const response = await fetch(`${api.url}${call.path}`, {
          method: "POST",
          headers: call.headers,
          body: JSON.stringify(call.body),
        });
        expect(response.status).toBe(200);
        calls++;
        if (!stream) {
          const read = readResult(format, await response.json());
          expect(read.ok).toBe(true);
          if (!read.ok) return;
          expect(read.value.parts.find((part) => part.type === "text")).toMatchObject({
            text: "From the upstream.",
          });
          expect(read.value.usage?.outputTokens).toBeGreaterThan(0);
          return;
        }
        expect(response.headers.get("content-type")).toStartWith("text/event-stream");
        const parser = createStreamParser(format);
        const events = [...parser.push(await response.text()), ...parser.end()];
        const text = events.map((event) => (event.type === "text" ? event.text : "")).join("");
        expect(text).toBe("From the upstream.");
        expect(events.some((event) => event.type === "error")).toBe(false);
        if (format !== "chat") expect(events.some((event) => event.type === "usage")).toBe(true);
      });

test("each of those calls was charged once", async () => {
  const deadline = Date.now() + 5_000;
  let charges = 0n;
  while (Date.now() < deadline) {
    const [row] = await api.store.sql<{ charges: bigint }[]>`
      select count(*) as charges from ledger_entries where user_id = ${BigInt(userId)} and kind = 'charge'`;
    charges = row!.charges;
    if (charges === BigInt(calls)) break;
    await Bun.sleep(50);
  }
  expect(calls).toBe(24);
  expect(charges).toBe(24n);
});
