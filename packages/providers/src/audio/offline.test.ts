// Proves the offline audio provider makes real files (WAV and MP3 that ffmpeg decodes)
// whose decoded length is the whole number of seconds a per-second tariff bills.
import { describe, expect, test } from "bun:test";
import { offlineAudioProvider, speechSeconds } from "./offline.ts";
import { measureSeconds } from "./tone.ts";

describe("offline audio", () => {
  test("speech lasts what its text takes at its speed, in the format asked for", async () => {
    const prompt = "one two three four five six seven eight nine ten eleven";
    expect(speechSeconds(prompt, 1)).toBe(5);
    expect(speechSeconds(prompt, 2)).toBe(3);
    expect(speechSeconds("", 1)).toBe(1);
    expect(speechSeconds("word ".repeat(10_000), 0.5)).toBe(600);
    for (const format of ["wav", "mp3"] as const) {
      const result = await offlineAudioProvider.run({
        taskId: "aud_test",
        model: "sonora/speech",
        operation: "text-to-speech",
        prompt,
        input: { format, voice: "bright", speed: 1 },
      });
      if (!result.ok) throw new Error(result.message);
      const [track] = result.tracks;
      expect(track!.seconds).toBe(5);
      expect(track!.contentType).toBe(format === "wav" ? "audio/wav" : "audio/mpeg");
      const seconds = await measureSeconds(track!.bytes);
      // WAV is sample exact; MP3 frames may pad the end by a few milliseconds.
      if (format === "wav") expect(seconds).toBe(5);
      else expect(Math.abs(seconds - 5)).toBeLessThan(0.1);
    }
  });

  test("music: two tracks per generation, named parts when separated", async () => {
    const run = (operation: string, input: Record<string, unknown> = {}) =>
      offlineAudioProvider.run({ taskId: "aud_t", model: "sonora/music", operation, input });
    const song = await run("generate");
    if (!song.ok) throw new Error(song.message);
    expect(song.tracks.map((track) => track.seconds)).toEqual([30, 30]);
    const stems = await run("separate", { type: "stems" });
    if (!stems.ok) throw new Error(stems.message);
    expect(stems.tracks.map((track) => track.name)).toEqual(["vocals", "drums", "bass", "other"]);
    expect(await run("remix")).toMatchObject({ ok: false, code: "unsupported_operation" });
  });
});
