import ffmpeg from "@ffmpeg-installer/ffmpeg";

export type AudioFormat = "mp3" | "wav";

export const AUDIO_CONTENT_TYPES: Record<AudioFormat, string> = {
  mp3: "audio/mpeg",
  wav: "audio/wav",
};

const SAMPLE_RATE = 22_050;

/**
 * Billed seconds of an upstream file: its decoded length rounded up to a whole second,
 * ignoring the up to 150 ms an MP3 encoder pads (delay and the last frame), so a 3-second
 * answer bills 3 seconds, not 4.
 */
export const CODEC_PADDING_S = 0.15;

/**
 * A real audio file of exactly `seconds` of tones (ffmpeg from @ffmpeg-installer, so any
 * player opens it): WAV is 16-bit mono PCM, MP3 is encoded by ffmpeg's libmp3lame.
 */
export async function renderTone(
  seconds: number,
  frequency: number,
  format: AudioFormat,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const child = Bun.spawn(
    [
      ffmpeg.path,
      "-hide_banner",
      "-loglevel",
      "error",
      "-f",
      "lavfi",
      "-i",
      `sine=frequency=${frequency}:sample_rate=${SAMPLE_RATE}:duration=${seconds}`,
      "-ac",
      "1",
      ...(format === "wav" ? ["-c:a", "pcm_s16le"] : ["-b:a", "64k"]),
      "-f",
      format,
      "pipe:1",
    ],
    { stdout: "pipe", stderr: "pipe", ...(signal ? { signal } : {}) },
  );
  const [bytes, errors, code] = await Promise.all([
    new Response(child.stdout).arrayBuffer(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) throw new Error(`ffmpeg exited ${code}: ${errors.slice(0, 300)}`);
  return new Uint8Array(bytes);
}

/** Seconds of audio in a file, decoded by ffmpeg to PCM and counted in samples. */
export async function measureSeconds(bytes: Uint8Array): Promise<number> {
  const child = Bun.spawn(
    [
      ffmpeg.path,
      "-hide_banner",
      "-loglevel",
      "error",
      "-i",
      "pipe:0",
      "-ac",
      "1",
      "-ar",
      String(SAMPLE_RATE),
      "-f",
      "s16le",
      "pipe:1",
    ],
    { stdin: "pipe", stdout: "pipe", stderr: "pipe" },
  );
  child.stdin.write(bytes);
  child.stdin.end();
  const [pcm, code] = await Promise.all([new Response(child.stdout).arrayBuffer(), child.exited]);
  if (code !== 0) throw new Error(`ffmpeg could not decode the audio (exit ${code})`);
  return pcm.byteLength / 2 / SAMPLE_RATE;
}
