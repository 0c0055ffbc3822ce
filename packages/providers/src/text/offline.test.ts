// Proves the offline text provider: the same prompt gives the same text in every format,
// its JSON and SSE read back through @gw/textformats (readResult, createStreamParser) as
// each public shape, usage follows the documented rules (local count, word count, output
// cap), and each [offline:…] marker does what src/text/README.md says.
import { describe, expect, test } from "bun:test";
import {
  createStreamParser,
  readResult,
  type StreamEvent,
  TEXT_FORMATS,
  type TextFormat,
  type TextResult,
} from "@gw/textformats";
import { readSseText } from "../testing/index.ts";
import { createOfflineTextProvider } from "./offline.ts";
import { offlineText, offlineTokens } from "./offline-text.ts";
import type { TextAnswer, TextCall } from "./types.ts";

const offline = createOfflineTextProvider();

function body(format: TextFormat, prompt: string, cap?: number): Record<string, unknown> {
  switch (format) {
    case "chat":
      return {
        model: "m",
        messages: [
          { role: "system", content: "You are terse." },
          { role: "user", content: prompt },
        ],
        ...(cap ? { max_tokens: cap } : {}),
      };
    case "responses":
      return { model: "m", input: prompt, ...(cap ? { max_output_tokens: cap } : {}) };
    case "messages":
      return { model: "m", max_tokens: cap ?? 100, messages: [{ role: "user", content: prompt }] };
    case "generateContent":
      return {
        contents: [{ role: "user", parts: [{ text: prompt }] }],
        ...(cap ? { generationConfig: { maxOutputTokens: cap } } : {}),
      };
  }
}

const call = (format: TextFormat, prompt: string, extra: Partial<TextCall> = {}): TextCall => ({
  format,
  upstreamModel: "offline-text-1",
  body: body(format, prompt),
  stream: false,
  signal: new AbortController().signal,
  localInputTokens: 42,
  ...extra,
});

function result(format: TextFormat, answer: TextAnswer): TextResult {
  if (!answer.ok || !("json" in answer))
    throw new Error(`not a JSON answer: ${JSON.stringify(answer)}`);
  const read = readResult(format, answer.json);
  if (!read.ok) throw new Error(read.message);
  return read.value;
}

async function streamed(format: TextFormat, answer: TextAnswer): Promise<StreamEvent[]> {
  if (!answer.ok || !("sse" in answer)) throw new Error("not a stream");
  const parser = createStreamParser(format);
  return [...parser.push(await readSseText(answer.sse)), ...parser.end()];
}

const textOf = (value: TextResult) =>
  value.parts.map((part) => (part.type === "text" ? part.text : "")).join("");

describe("text", () => {
  test("deterministic: the same last user text gives the same words, another gives others", () => {
    const a = offlineText("What is the weather?");
    expect(offlineText("What is the weather?")).toEqual(a);
    expect(offlineText("Tell me a story.").text).not.toBe(a.text);
    expect(a.tokens).toBe(offlineTokens(a.text));
    expect(a.tokens).toBeGreaterThanOrEqual(12);
    expect(a.tokens).toBeLessThanOrEqual(48);
    expect(a.text).toMatch(/^[A-Z][a-z]+( [A-Za-z]+\.?)*\.$/);
  });

  test("the output cap cuts the text, in words", () => {
    const cut = offlineText("What is the weather?", 5);
    expect([cut.tokens, cut.truncated]).toEqual([5, true]);
    expect(offlineText("What is the weather?").text.startsWith(cut.text.slice(0, -1))).toBe(true);
  });
});

describe.each(TEXT_FORMATS)("%s", (format) => {
  test("JSON reads back as the public shape with the documented usage", async () => {
    const answer = await offline.call(call(format, "Say hello."));
    expect(answer).toMatchObject({ ok: true, status: 200 });
    const value = result(format, answer);
    const expected = offlineText("Say hello.");
    expect(textOf(value)).toBe(expected.text);
    expect(value.finish.reason).toBe("stop");
    expect(value.usage).toEqual({
      inputTokens: 42,
      outputTokens: expected.tokens,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    const again = result(format, await offline.call(call(format, "Say hello.")));
    expect([again.id, textOf(again)]).toEqual([value.id, textOf(value)]);
  });

  test("SSE parses into a few text chunks, a finish and the same usage", async () => {
    const events = await streamed(
      format,
      await offline.call(call(format, "Say hello.", { stream: true })),
    );
    const texts = events.flatMap((event) => (event.type === "text" ? [event.text] : []));
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.join("")).toBe(offlineText("Say hello.").text);
    expect(events.some((event) => event.type === "error")).toBe(false);
    expect(events).toContainEqual({ type: "finish", finish: { reason: "stop" } });
    expect(events.findLast((event) => event.type === "usage")).toMatchObject({
      usage: { inputTokens: 42, outputTokens: offlineText("Say hello.").tokens },
    });
  });

  test("the request's output cap is honoured and finishes as length", async () => {
    const capped = { ...call(format, "Say hello."), body: body(format, "Say hello.", 3) };
    const value = result(format, await offline.call(capped));
    expect(offlineTokens(textOf(value))).toBe(3);
    expect(value.finish.reason).toBe("length");
    expect(value.usage?.outputTokens).toBe(3);
  });

  test("markers: prompt overhead, cache read and cache write", async () => {
    const prompt =
      "Hi [offline:prompt-overhead=250] [offline:cache-read=30] [offline:cache-write=7]";
    const value = result(format, await offline.call(call(format, prompt)));
    // Gemini has no cache-write counter: those tokens stay in promptTokenCount, as input.
    const expected =
      format === "generateContent"
        ? { inputTokens: 299, cacheReadTokens: 30, cacheWriteTokens: 0 }
        : { inputTokens: 292, cacheReadTokens: 30, cacheWriteTokens: 7 };
    expect(value.usage).toMatchObject(expected);
  });

  test("[offline:fail] fails as an upstream error before anything started", async () => {
    expect(await offline.call(call(format, "Hi [offline:fail]"))).toEqual({
      ok: false,
      code: "upstream_error",
      message: "provider offline failed on purpose",
      started: false,
    });
  });

  test("[offline:no-usage] reports no usage, in JSON and SSE", async () => {
    const answer = await offline.call(call(format, "Hi [offline:no-usage]"));
    expect(result(format, answer).usage).toBeUndefined();
    const stream = await offline.call(call(format, "Hi [offline:no-usage]", { stream: true }));
    const text = await readSseText((stream as { sse: ReadableStream<Uint8Array> }).sse);
    // The messages reader turns any message_delta into usage, so there the bytes are checked.
    if (format === "messages") expect(text).not.toContain('"usage"');
    else {
      const parser = createStreamParser(format);
      const events = [...parser.push(text), ...parser.end()];
      expect(events.some((event) => event.type === "usage")).toBe(false);
    }
  });
});

describe("usage rules", () => {
  test("chat JSON: prompt_tokens is the full input, cache reads and writes included", async () => {
    const answer = await offline.call(
      call("chat", "Hi [offline:cache-read=30] [offline:cache-write=7]"),
    );
    expect((answer as { json: { usage: unknown } }).json.usage).toMatchObject({
      prompt_tokens: 79,
      prompt_tokens_details: { cached_tokens: 30, cache_write_tokens: 7 },
    });
  });

  test("messages JSON: the cache counters in Anthropic's fields", async () => {
    const answer = await offline.call(
      call("messages", "Hi [offline:cache-read=30] [offline:cache-write=7]"),
    );
    expect((answer as { json: { usage: unknown } }).json.usage).toMatchObject({
      input_tokens: 42,
      cache_read_input_tokens: 30,
      cache_creation_input_tokens: 7,
    });
  });

  test("without a local count, the input is the prompt's word count", async () => {
    const value = result(
      "chat",
      await offline.call(call("chat", "one two three", { localInputTokens: undefined })),
    );
    expect(value.usage?.inputTokens).toBe(6); // "You are terse." + "one two three"
  });

  test("a chat stream always carries its usage chunk, as the gateway asks", async () => {
    const answer = await offline.call(call("chat", "Hi", { stream: true }));
    const text = await readSseText((answer as { sse: ReadableStream<Uint8Array> }).sse);
    expect(text).toContain('"choices":[]');
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  test("an aborted call answers upstream_timeout", async () => {
    const answer = await offline.call(call("chat", "Hi", { signal: AbortSignal.abort() }));
    expect(answer).toMatchObject({ ok: false, code: "upstream_timeout", started: false });
  });
});
