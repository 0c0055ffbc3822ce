// Proves whatever another format cannot carry is refused as an `untranslatable` value that
// names the client's field and the upstream format, never dropped; and that the hints the
// table lists as ignored (no effect on the answer) do not block a translation.
import { describe, expect, test } from "bun:test";
import type { TextFormat } from "./formats.ts";
import type { Json } from "./read.ts";
import { translateRequest } from "./requests.ts";
import { PNG } from "./testing/requests.ts";

const user = (content: unknown) => ({ role: "user", content });
const chat = (extra: Json, messages: unknown[] = [user("Hi")]): Json => ({
  model: "m",
  messages,
  ...extra,
});
const messages = (extra: Json, content: unknown = "Hi"): Json => ({
  model: "m",
  max_tokens: 64,
  messages: [user(content)],
  ...extra,
});
const gemini = (extra: Json, parts: unknown[] = [{ text: "Hi" }]): Json => ({
  contents: [{ role: "user", parts }],
  ...extra,
});
const responses = (extra: Json): Json => ({ model: "m", input: "Hi", ...extra });

type Case = [string, TextFormat, Json, TextFormat, string];

const CASES: Case[] = [
  [
    "audio input",
    "chat",
    chat({}, [user([{ type: "input_audio", input_audio: { data: "AA", format: "wav" } }])]),
    "messages",
    "messages[0].content[0] (input_audio) cannot be sent to a messages upstream",
  ],
  [
    "a file part",
    "chat",
    chat({}, [user([{ type: "file", file: { file_id: "f" } }])]),
    "generateContent",
    "messages[0].content[0] (file) cannot be sent to a generateContent upstream",
  ],
  ["n > 1", "chat", chat({ n: 2 }), "messages", "n cannot be sent to a messages upstream"],
  [
    "logprobs",
    "chat",
    chat({ logprobs: true, top_logprobs: 2 }),
    "generateContent",
    "logprobs cannot be sent",
  ],
  [
    "logit_bias",
    "chat",
    chat({ logit_bias: { "50256": -100 } }),
    "responses",
    "logit_bias cannot be sent to a responses upstream",
  ],
  [
    "audio output",
    "chat",
    chat({ modalities: ["text", "audio"], audio: { voice: "alloy", format: "wav" } }),
    "messages",
    "modalities cannot be sent",
  ],
  [
    "web search options",
    "chat",
    chat({ web_search_options: {} }),
    "messages",
    "web_search_options cannot be sent",
  ],
  [
    "a participant name",
    "chat",
    chat({}, [{ role: "user", name: "ann", content: "Hi" }]),
    "messages",
    "messages[0].name cannot be sent",
  ],
  [
    "allowed_tools tool choice",
    "chat",
    chat({ tool_choice: { type: "allowed_tools", allowed_tools: { mode: "auto", tools: [] } } }),
    "messages",
    "tool_choice cannot be sent",
  ],
  [
    "a custom tool",
    "chat",
    chat({ tools: [{ type: "custom", custom: { name: "x" } }] }),
    "messages",
    "tools[0] (custom tool) cannot be sent",
  ],
  [
    "json_object to messages",
    "chat",
    chat({ response_format: { type: "json_object" } }),
    "messages",
    "response_format json_object cannot be sent to a messages upstream",
  ],
  [
    "seed to messages",
    "chat",
    chat({ seed: 7 }),
    "messages",
    "seed cannot be sent to a messages upstream",
  ],
  [
    "penalties to responses",
    "chat",
    chat({ presence_penalty: 0.5 }),
    "responses",
    "presence_penalty cannot be sent to a responses upstream",
  ],
  [
    "reasoning effort to messages",
    "chat",
    chat({ reasoning_effort: "low" }),
    "messages",
    "reasoning_effort cannot be sent to a messages upstream",
  ],
  [
    "parallel_tool_calls false to Gemini",
    "chat",
    chat({ parallel_tool_calls: false }),
    "generateContent",
    "parallel_tool_calls cannot be sent to a generateContent upstream",
  ],
  [
    "a strict tool to Gemini",
    "chat",
    chat({
      tools: [
        { type: "function", function: { name: "f", parameters: { type: "object" }, strict: true } },
      ],
    }),
    "generateContent",
    "tools[0] strict cannot be sent",
  ],
  [
    "a later system message to messages",
    "chat",
    chat({}, [user("Hi"), { role: "system", content: "Now be terse." }]),
    "messages",
    "a system message after the conversation started cannot be sent to a messages upstream",
  ],
  [
    "an image URL to Gemini",
    "chat",
    chat({}, [user([{ type: "image_url", image_url: { url: "https://example.com/a.png" } }])]),
    "generateContent",
    "an image given by URL cannot be sent to a generateContent upstream (send it as base64 data)",
  ],
  [
    "no output cap to messages",
    "chat",
    chat({}),
    "messages",
    "a request without an output cap cannot be sent to a messages upstream (it requires max_tokens)",
  ],
  [
    "an unknown field",
    "chat",
    chat({ vendor_knob: 3 }),
    "messages",
    "vendor_knob cannot be sent to a messages upstream",
  ],
  [
    "built-in tools",
    "responses",
    responses({ tools: [{ type: "web_search" }] }),
    "chat",
    "tools[0] (web_search tool) cannot be sent to a chat completions upstream",
  ],
  [
    "a stored conversation",
    "responses",
    responses({ previous_response_id: "resp_1" }),
    "messages",
    "previous_response_id cannot be sent",
  ],
  [
    "background mode",
    "responses",
    responses({ background: true }),
    "chat",
    "background cannot be sent",
  ],
  [
    "a reasoning summary",
    "responses",
    responses({ reasoning: { effort: "low", summary: "auto" } }),
    "chat",
    "reasoning.summary cannot be sent",
  ],
  [
    "a reasoning item",
    "responses",
    responses({ input: [{ type: "reasoning", id: "rs_1", summary: [] }] }),
    "chat",
    "input[0] (reasoning) cannot be sent",
  ],
  [
    "an input file",
    "responses",
    responses({ input: [{ role: "user", content: [{ type: "input_file", file_id: "f" }] }] }),
    "messages",
    "input[0].content[0] (input_file) cannot be sent",
  ],
  [
    "extended thinking",
    "messages",
    messages({ thinking: { type: "enabled", budget_tokens: 1024 } }),
    "chat",
    "thinking cannot be sent to a chat completions upstream",
  ],
  [
    "top_k to chat",
    "messages",
    messages({ top_k: 5 }),
    "chat",
    "top_k cannot be sent to a chat completions upstream",
  ],
  [
    "a document",
    "messages",
    messages({}, [{ type: "document", source: { type: "url", url: "https://x/a.pdf" } }]),
    "responses",
    "messages[0].content[0] (document) cannot be sent to a responses upstream",
  ],
  [
    "an error tool result to chat",
    "messages",
    messages({}, [{ type: "tool_result", tool_use_id: "t", content: "boom", is_error: true }]),
    "chat",
    "a tool result marked as an error (is_error) cannot be sent",
  ],
  [
    "a server tool",
    "messages",
    messages({ tools: [{ type: "web_search_20250305", name: "web_search" }] }),
    "chat",
    "tools[0] (web_search_20250305 tool) cannot be sent",
  ],
  [
    "effort",
    "messages",
    messages({ output_config: { effort: "high" } }),
    "chat",
    "output_config.effort cannot be sent",
  ],
  [
    "an MCP server",
    "messages",
    messages({ mcp_servers: [{ type: "url", url: "https://x" }] }),
    "chat",
    "mcp_servers cannot be sent",
  ],
  [
    "safety settings",
    "generateContent",
    gemini({ safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }] }),
    "chat",
    "safetySettings cannot be sent to a chat completions upstream",
  ],
  [
    "several candidates",
    "generateContent",
    gemini({ generationConfig: { candidateCount: 2 } }),
    "messages",
    "generationConfig.candidateCount cannot be sent",
  ],
  [
    "thinking config",
    "generateContent",
    gemini({ generationConfig: { thinkingConfig: { thinkingBudget: 0 } } }),
    "chat",
    "generationConfig.thinkingConfig cannot be sent",
  ],
  [
    "Google Search",
    "generateContent",
    gemini({ tools: [{ googleSearch: {} }] }),
    "chat",
    "tools[0].googleSearch cannot be sent to a chat completions upstream",
  ],
  [
    "audio inline data",
    "generateContent",
    gemini({}, [{ inlineData: { mimeType: "audio/wav", data: "AA" } }]),
    "chat",
    "contents[0].parts[0] (inlineData) cannot be sent",
  ],
  [
    "a cached content",
    "generateContent",
    gemini({ cachedContent: "cachedContents/1" }),
    "messages",
    "cachedContent cannot be sent",
  ],
];

describe("refusals", () => {
  test.each(CASES)("%s (%s → %s)", (_, from, body, to, message) => {
    const result = translateRequest(from, to, body, {
      path: { model: "m", stream: false },
      ...(from === "chat" && message.includes("output cap") ? {} : { defaultMaxTokens: 64 }),
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe("untranslatable");
    expect(result.message).toContain(message);
  });

  test("tool call arguments that are not a JSON object are the client's error", () => {
    const body = chat({}, [
      user("Hi"),
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "[1" } }],
      },
    ]);
    expect(translateRequest("chat", "messages", body, { defaultMaxTokens: 8 })).toMatchObject({
      ok: false,
      code: "invalid_request",
    });
  });

  test("a tool result that answers no tool call cannot be named for Gemini", () => {
    const body = chat({}, [{ role: "tool", tool_call_id: "missing", content: "x" }]);
    expect(translateRequest("chat", "generateContent", body)).toEqual({
      ok: false,
      code: "invalid_request",
      message: "the tool result for call missing answers no earlier tool call",
    });
  });
});

describe("ignored hints do not block a translation", () => {
  test("chat bookkeeping fields", () => {
    const body = chat({
      max_tokens: 10,
      user: "u1",
      safety_identifier: "s",
      metadata: { a: "b" },
      store: true,
      service_tier: "auto",
      prompt_cache_key: "k",
      n: 1,
      logprobs: false,
      stream_options: null,
    });
    expect(translateRequest("chat", "messages", body)).toEqual({
      ok: true,
      value: { model: "m", max_tokens: 10, messages: [user([{ type: "text", text: "Hi" }])] },
    });
  });

  test("messages metadata and cache_control, disabled thinking", () => {
    const body = messages(
      { metadata: { user_id: "u" }, thinking: { type: "disabled" }, service_tier: "auto" },
      [{ type: "text", text: "Hi", cache_control: { type: "ephemeral" } }],
    );
    expect(translateRequest("messages", "chat", body)).toEqual({
      ok: true,
      value: { model: "m", max_completion_tokens: 64, messages: [user("Hi")] },
    });
  });

  test("a Gemini thought signature and labels", () => {
    const body = gemini({ labels: { team: "a" } }, [{ text: "Hi", thoughtSignature: "sig" }]);
    expect(
      translateRequest("generateContent", "chat", body, { path: { model: "g", stream: false } }),
    ).toEqual({ ok: true, value: { model: "g", messages: [user("Hi")] } });
  });

  test("a base64 image in a messages body reaches chat as a data URL", () => {
    const body = messages({}, [
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
    ]);
    const written = translateRequest("messages", "chat", body);
    expect(written.ok && written.value.messages).toEqual([
      user([{ type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }]),
    ]);
  });
});
