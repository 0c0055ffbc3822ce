// Proves the two audio adapters against local stubs that follow the providers' public API
// shapes: an OpenAI-compatible /audio/speech (bytes back, billed by decoded length) and a
// queue-style media API (submit, poll status, fetch the result and its files).
import { afterAll, describe, expect, test } from "bun:test";
import { startQueueStub, startSpeechStub } from "../testing/audio-stubs.ts";
import { createOpenAISpeechProvider } from "./openai-speech.ts";
import { createQueueMediaProvider } from "./queue-media.ts";
import { measureSeconds } from "./tone.ts";

const speech = startSpeechStub();
const queue = startQueueStub();
afterAll(async () => {
  await speech.stop();
  await queue.stop();
});

describe("OpenAI-compatible speech", () => {
  const provider = createOpenAISpeechProvider({
    baseUrl: speech.baseUrl,
    apiKey: "sk-speech-stub",
  });
  const job = (input: Record<string, unknown>, prompt = "one two three four five six") => ({
    taskId: "aud_x",
    model: "sonora/speech",
    upstreamModel: "tts-1",
    operation: "text-to-speech",
    prompt,
    input,
  });

  test("sends the request OpenAI's shape takes and bills the file's length", async () => {
    const result = await provider.run(job({ voice: "standard", speed: 1.5, format: "wav" }));
    if (!result.ok) throw new Error(result.message);
    expect(speech.requests.at(-1)).toEqual({
      model: "tts-1",
      input: "one two three four five six",
      voice: "alloy",
      speed: 1.5,
      response_format: "wav",
    });
    const [track] = result.tracks;
    expect(track!.seconds).toBe(3);
    expect(track!.contentType).toBe("audio/wav");
    expect(await measureSeconds(track!.bytes)).toBe(3);
  });

  test("an upstream error fails the task once; a wrong key too", async () => {
    speech.failWith(500);
    const before = speech.requests.length;
    expect(await provider.run(job({}))).toMatchObject({ ok: false, code: "upstream_error" });
    expect(speech.requests.length).toBe(before + 1);
    speech.failWith(0);
    const wrong = createOpenAISpeechProvider({ baseUrl: speech.baseUrl, apiKey: "sk-wrong" });
    expect(await wrong.run(job({}))).toMatchObject({ ok: false, code: "upstream_error" });
    expect(await provider.run({ ...job({}), operation: "generate" })).toMatchObject({
      ok: false,
      code: "invalid_request",
    });
  });
});

describe("queue-style media API", () => {
  const provider = createQueueMediaProvider({
    baseUrl: queue.baseUrl,
    apiKey: "queue-stub-key",
    pollMs: 10,
  });

  test("submits once, polls to completion, downloads every track", async () => {
    const result = await provider.run({
      taskId: "aud_y",
      model: "sonora/music",
      upstreamModel: "vendor/music-v4",
      operation: "generate",
      prompt: "a calm song",
      input: { instrumental: true },
    });
    if (!result.ok) throw new Error(result.message);
    expect(queue.requests.at(-1)).toEqual({
      path: "/vendor/music-v4",
      prompt: "a calm song",
      operation: "generate",
      instrumental: true,
    });
    expect(result.tracks.map((track) => [track.seconds, track.name, track.contentType])).toEqual([
      [3, "take-1", "audio/mpeg"],
      [3, "take-2", "audio/mpeg"],
    ]);
  });

  test("a refused submit fails without polling", async () => {
    queue.failWith(422);
    const result = await provider.run({
      taskId: "aud_z",
      model: "sonora/music",
      operation: "generate",
      input: {},
    });
    queue.failWith(0);
    expect(result).toMatchObject({ ok: false, code: "invalid_request" });
  });
});
