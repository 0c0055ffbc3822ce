import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ffmpeg from "@ffmpeg-installer/ffmpeg";

/** One video task as a provider sees it. */
export interface VideoJob {
  taskId: string;
  model: string;
  operation: string;
  prompt?: string;
  input: Record<string, unknown>;
  signal?: AbortSignal;
}

export interface VideoFile {
  bytes: Uint8Array;
  contentType: "video/mp4";
  ext: "mp4";
  /** Whole seconds of video: what a per-second tariff bills. */
  seconds: number;
  width: number;
  height: number;
}

export type VideoResult =
  | { ok: true; video: VideoFile }
  | { ok: false; code: string; message: string };

export interface VideoProvider {
  name: string;
  run(job: VideoJob): Promise<VideoResult>;
}

const HEIGHTS: Record<string, number> = { "480p": 480, "720p": 720, "1080p": 1080 };
const RATIOS: Record<string, [number, number]> = {
  "16:9": [16, 9],
  "9:16": [9, 16],
  "1:1": [1, 1],
};

/** Frame size of a resolution and aspect ratio, even on both sides as H.264 wants. */
export function frameSize(resolution: string, aspect: string): { width: number; height: number } {
  const short = HEIGHTS[resolution] ?? 720;
  const [w, h] = RATIOS[aspect] ?? [16, 9];
  const even = (value: number) => Math.round(value / 2) * 2;
  return w >= h
    ? { width: even((short * w) / h), height: short }
    : { width: short, height: even((short * h) / w) };
}

/**
 * A real MP4 (H.264, with an AAC soundtrack when `sound`) of exactly `seconds`, made by
 * the ffmpeg binary of @ffmpeg-installer: a moving test pattern any player opens. MP4 needs
 * a seekable output for its index (faststart), so it is written to a temporary file.
 */
export async function renderVideo(options: {
  seconds: number;
  width: number;
  height: number;
  sound: boolean;
  signal?: AbortSignal;
}): Promise<Uint8Array> {
  const dir = await mkdtemp(join(tmpdir(), "gw-video-"));
  const out = join(dir, "out.mp4");
  try {
    const { seconds, width, height, sound } = options;
    const child = Bun.spawn(
      [
        ffmpeg.path,
        "-hide_banner",
        "-loglevel",
        "error",
        "-f",
        "lavfi",
        "-i",
        `testsrc=duration=${seconds}:size=${width}x${height}:rate=24`,
        ...(sound ? ["-f", "lavfi", "-i", `sine=frequency=440:duration=${seconds}`] : []),
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-pix_fmt",
        "yuv420p",
        ...(sound ? ["-c:a", "aac", "-shortest"] : ["-an"]),
        "-movflags",
        "+faststart",
        "-y",
        out,
      ],
      { stdout: "ignore", stderr: "pipe", ...(options.signal ? { signal: options.signal } : {}) },
    );
    const [errors, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
    if (code !== 0) throw new Error(`ffmpeg exited ${code}: ${errors.slice(0, 300)}`);
    return new Uint8Array(await readFile(out));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The built-in provider: a test-pattern MP4 of the requested length, size and sound. */
export const offlineVideoProvider: VideoProvider = {
  name: "offline",
  async run(job) {
    const seconds = typeof job.input.duration === "number" ? job.input.duration : 5;
    const resolution = typeof job.input.resolution === "string" ? job.input.resolution : "720p";
    const aspect = typeof job.input.aspect_ratio === "string" ? job.input.aspect_ratio : "16:9";
    const { width, height } = frameSize(resolution, aspect);
    const bytes = await renderVideo({
      seconds,
      width,
      height,
      sound: job.input.sound === true,
      ...(job.signal ? { signal: job.signal } : {}),
    });
    return {
      ok: true,
      video: { bytes, contentType: "video/mp4", ext: "mp4", seconds, width, height },
    };
  },
};
