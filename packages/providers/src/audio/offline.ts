import { AUDIO_CONTENT_TYPES, type AudioFormat, renderTone } from "./tone.ts";

/** One audio task as a provider sees it. */
export interface AudioJob {
  taskId: string;
  model: string;
  /** The model id the upstream knows (the catalog's upstream model), when it differs. */
  upstreamModel?: string;
  operation: string;
  prompt?: string;
  input: Record<string, unknown>;
  signal?: AbortSignal;
}

export interface AudioTrack {
  bytes: Uint8Array;
  contentType: string;
  ext: AudioFormat;
  /** Whole seconds of audio in the file: what a per-second tariff bills. */
  seconds: number;
  name?: string;
}

export type AudioResult =
  | { ok: true; tracks: AudioTrack[] }
  | { ok: false; code: string; message: string };

export interface AudioProvider {
  name: string;
  run(job: AudioJob): Promise<AudioResult>;
}

/** Speech pace: 2.5 words a second at speed 1, as a calm reader speaks. */
const WORDS_PER_SECOND = 2.5;
const MAX_SPEECH_SECONDS = 600;
const SONG_SECONDS = 30;
const VOICES: Record<string, number> = { standard: 220, warm: 180, bright: 330, narrator: 260 };

/** Seconds of speech a text takes at a speed: at least one, at most ten minutes. */
export function speechSeconds(text: string, speed: number): number {
  const words = text.trim().split(/\s+/).filter(Boolean).length;
  return Math.min(MAX_SPEECH_SECONDS, Math.max(1, Math.ceil(words / WORDS_PER_SECOND / speed)));
}

async function track(
  seconds: number,
  frequency: number,
  format: AudioFormat,
  name: string,
  signal?: AbortSignal,
): Promise<AudioTrack> {
  const bytes = await renderTone(seconds, frequency, format, signal);
  return { bytes, contentType: AUDIO_CONTENT_TYPES[format], ext: format, seconds, name };
}

/**
 * The built-in provider: real, playable files without any network. Speech is a tone whose
 * length follows the text (the standard voice unless `input.voice` names another); music
 * makes two 30-second tracks per generation; separation gives vocals + instrumental (or
 * four stems); WAV conversion one WAV track. Deterministic for a given input.
 */
export const offlineAudioProvider: AudioProvider = {
  name: "offline",
  async run(job) {
    const { input, signal } = job;
    if (job.model === "sonora/speech" || job.operation === "text-to-speech") {
      const voice = typeof input.voice === "string" ? input.voice : "standard";
      const speed = typeof input.speed === "number" ? input.speed : 1;
      const format: AudioFormat = input.format === "wav" ? "wav" : "mp3";
      const seconds = speechSeconds(job.prompt ?? "", speed);
      return {
        ok: true,
        tracks: [await track(seconds, VOICES[voice] ?? 220, format, "speech", signal)],
      };
    }
    switch (job.operation) {
      case "generate":
      case "extend":
        return {
          ok: true,
          tracks: await Promise.all([
            track(SONG_SECONDS, 262, "mp3", "take-1", signal),
            track(SONG_SECONDS, 330, "mp3", "take-2", signal),
          ]),
        };
      case "separate": {
        const parts =
          input.type === "stems"
            ? ["vocals", "drums", "bass", "other"]
            : ["vocals", "instrumental"];
        return {
          ok: true,
          tracks: await Promise.all(
            parts.map((part, i) => track(SONG_SECONDS, 200 + 60 * i, "mp3", part, signal)),
          ),
        };
      }
      case "wav":
        return { ok: true, tracks: [await track(SONG_SECONDS, 262, "wav", "wav", signal)] };
      default:
        return {
          ok: false,
          code: "unsupported_operation",
          message: `the offline provider has no audio operation ${job.operation}`,
        };
    }
  },
};
