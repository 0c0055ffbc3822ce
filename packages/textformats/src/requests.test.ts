// Proves every cross-format pair of requests translates text, images, system prompts,
// sampling settings, output caps, stop sequences, tools, tool calls and tool results into
// the target's own shape, and that same-format calls pass through untouched.
import { describe, expect, test } from "bun:test";
import { TEXT_FORMATS, type TextFormat } from "./formats.ts";
import type { Json } from "./read.ts";
import { toNeutral, translateRequest, withUpstreamUsage } from "./requests.ts";
import { PATH, REQUESTS } from "./testing/requests.ts";

const translate = (from: TextFormat, to: TextFormat, body: Json) =>
  translateRequest(from, to, body, { path: PATH });

const PAIRS = TEXT_FORMATS.flatMap((from) =>
  TEXT_FORMATS.filter((to) => to !== from).map((to) => [from, to] as const),
);

describe("translateRequest: the whole conversation, every pair", () => {
  test.each(PAIRS)("%s → %s", (from, to) => {
    expect(translate(from, to, REQUESTS[from])).toEqual({ ok: true, value: REQUESTS[to] });
  });

  test("a same-format call is the client's body, unknown fields and all", () => {
    const body = { ...REQUESTS.chat, logprobs: true, vendor_extension: { x: 1 } };
    const passed = translate("chat", "chat", body);
    expect(passed.ok && passed.value).toBe(body);
  });
});

const STOP_BODIES: Partial<Record<TextFormat, Json>> = {
  chat: { model: "m", messages: [{ role: "user", content: "Hi" }], stop: ["END", "\n\n"] },
  messages: {
    model: "m",
    max_tokens: 16,
    messages: [{ role: "user", content: "Hi" }],
    stop_sequences: ["END", "\n\n"],
  },
  generateContent: {
    contents: [{ role: "user", parts: [{ text: "Hi" }] }],
    generationConfig: { maxOutputTokens: 16, stopSequences: ["END", "\n\n"] },
  },
};

describe("stop sequences", () => {
  test("chat, messages and generateContent carry them to each other", () => {
    const fromChat = (to: TextFormat) =>
      translateRequest("chat", to, STOP_BODIES.chat as Json, { defaultMaxTokens: 16 });
    expect(fromChat("messages")).toEqual({
      ok: true,
      value: {
        ...(STOP_BODIES.messages as Json),
        messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
      },
    });
    expect(fromChat("generateContent")).toEqual({
      ok: true,
      value: {
        contents: [{ role: "user", parts: [{ text: "Hi" }] }],
        generationConfig: { stopSequences: ["END", "\n\n"] },
      },
    });
    const toChat = translate("messages", "chat", STOP_BODIES.messages as Json);
    expect(toChat.ok && toChat.value.stop).toEqual(["END", "\n\n"]);
    const geminiToMessages = translate(
      "generateContent",
      "messages",
      STOP_BODIES.generateContent as Json,
    );
    expect(geminiToMessages.ok && geminiToMessages.value.stop_sequences).toEqual(["END", "\n\n"]);
  });

  test("a single chat stop string is one sequence", () => {
    const body = { model: "m", messages: [{ role: "user", content: "Hi" }], stop: "END" };
    expect(toNeutral("chat", body).stop).toEqual(["END"]);
  });

  test.each(["chat", "messages", "generateContent"] as const)(
    "%s stop sequences are refused by a responses upstream, which has none",
    (from) => {
      const result = translate(from, "responses", STOP_BODIES[from] as Json);
      expect(result).toMatchObject({ ok: false, code: "untranslatable" });
      if (!result.ok) expect(result.message).toContain("cannot be sent to a responses upstream");
    },
  );
});

describe("streaming flag", () => {
  const chat = { model: "m", messages: [{ role: "user", content: "Hi" }], stream: true };

  test("a streamed chat request asks a chat upstream for usage", () => {
    const written = translate("messages", "chat", {
      model: "m",
      max_tokens: 8,
      stream: true,
      messages: [{ role: "user", content: "Hi" }],
    });
    expect(written.ok && written.value).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  test("streams carry over; generateContent's comes from its path", () => {
    const toMessages = translateRequest("chat", "messages", chat, { defaultMaxTokens: 8 });
    expect(toMessages.ok && toMessages.value.stream).toBe(true);
    const toResponses = translate("chat", "responses", chat);
    expect(toResponses.ok && toResponses.value.stream).toBe(true);
    const gemini = toNeutral(
      "generateContent",
      { contents: [{ parts: [{ text: "Hi" }] }] },
      { model: "g", stream: true },
    );
    expect(gemini).toMatchObject({ model: "g", stream: true });
  });

  test("withUpstreamUsage turns usage on for a same-format chat stream only", () => {
    expect(withUpstreamUsage("chat", chat)).toEqual({
      ...chat,
      stream_options: { include_usage: true },
    });
    const withOptions = { ...chat, stream_options: { include_obfuscation: false } };
    expect(withUpstreamUsage("chat", withOptions).stream_options).toEqual({
      include_obfuscation: false,
      include_usage: true,
    });
    const plain = { model: "m", messages: [] };
    expect(withUpstreamUsage("chat", plain)).toBe(plain);
    expect(withUpstreamUsage("messages", chat)).toBe(chat);
  });
});
