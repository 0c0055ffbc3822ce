import { frameSize } from "@gw/providers";

/** The frame size a video task asked for, from its validated input. */
export function frameSizeOf(input: Record<string, unknown>): { width: number; height: number } {
  return frameSize(
    typeof input.resolution === "string" ? input.resolution : "720p",
    typeof input.aspect_ratio === "string" ? input.aspect_ratio : "16:9",
  );
}
