// Proves a streamed text call finishes when its upstream sends frames one at a time, as
// every real upstream does (found by the soak, issue 16): a chunk that writes nothing in
// the client's format (a translated stream's `message_start`, half a frame) must not
// leave the client's stream waiting forever. Every pair of formats, streamed across.
import { afterAll, describe, expect, test } from "bun:test";
import { startAnthropicStub, startGeminiStub, startOpenAITextStub } from "@gw/providers/testing";
import { startTestApi } from "../../testing.ts";

const paced = { frameDelayMs: 30 };
const openai = await startOpenAITextStub(paced);
const anthropic = await startAnthropicStub(paced);
const gemini = await startGeminiStub(paced);
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

const prompt = "say something";
/** Each client format's streamed request for a model, and how its stream says it is done. */
const CLIENTS = {
  chat: (model: string) => ({
    path: "/v1/chat/completions",
    body: { model, messages: [{ role: "user", content: prompt }], max_tokens: 40, stream: true },
    done: "data: [DONE]",
  }),
  messages: (model: string) => ({
    path: "/v1/messages",
    body: { model, messages: [{ role: "user", content: prompt }], max_tokens: 40, stream: true },
    done: "event: message_stop",
  }),
  responses: (model: string) => ({
    path: "/v1/responses",
    body: { model, input: prompt, max_output_tokens: 40, stream: true },
    done: "response.completed",
  }),
  generateContent: (model: string) => ({
    path: `/v1beta/models/${model}:streamGenerateContent?alt=sse`,
    body: { contents: [{ role: "user", parts: [{ text: prompt }] }] },
    done: '"finishReason":"STOP"',
  }),
};
const UPSTREAMS = { openai: "lumen-chat-mini", anthropic: "lumen-chat", gemini: "lumen-reasoner" };

describe("a paced upstream stream reaches its end in every client format", () => {
  for (const [client, request] of Object.entries(CLIENTS))
    for (const [upstream, model] of Object.entries(UPSTREAMS))
      test(`${client} client, ${upstream} upstream`, async () => {
        const { secret } = await api.account({ balanceUsd: 1 });
        const { path, body, done } = request(model);
        const response = await fetch(`${api.url}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(4_000),
        });
        expect(response.status).toBe(200);
        expect(await response.text()).toContain(done);
      });
});
