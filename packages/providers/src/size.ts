import { MAX_SIDE } from "./image/diagonal.ts";

const LONG_SIDE: Record<string, number> = { "1K": 1024, "2K": 2048, "4K": 4096 };
const DEFAULT_SIZE = { width: 1024, height: 1024 };

export interface ImageSize {
  width: number;
  height: number;
}

function roundTo8(value: number): number {
  return Math.max(8, Math.round(value / 8) * 8);
}

function parsePair(text: string, separator: "x" | ":"): [number, number] | null {
  const match = new RegExp(`^\\s*(\\d{1,5})\\s*${separator}\\s*(\\d{1,5})\\s*$`).exec(text);
  if (!match) return null;
  const pair: [number, number] = [Number(match[1]), Number(match[2])];
  return pair[0] > 0 && pair[1] > 0 ? pair : null;
}

/**
 * The output size a job asks for. `size` "WxH" (gpt-image style) wins, "auto" meaning
 * unset; else `resolution` "1K"/"2K"/"4K" sets the long side (1024/2048/4096) and
 * `aspect_ratio` "W:H" (default 1:1) the short one, both rounded to multiples of 8; with
 * neither, 1024x1024. Throws RangeError on a value the catalog should have refused
 * (malformed, or over 8192 per side): the worker passes validated input.
 */
export function imageSize(input: Record<string, unknown>): ImageSize {
  const { size, resolution, aspect_ratio: aspectRatio } = input;
  if (typeof size === "string" && size !== "auto") {
    const pair = parsePair(size, "x");
    if (!pair || pair[0] > MAX_SIDE || pair[1] > MAX_SIDE) {
      throw new RangeError(`size "${size}" is not WxH with sides 1..${MAX_SIDE}`);
    }
    return { width: pair[0], height: pair[1] };
  }
  if (resolution === undefined && aspectRatio === undefined) return DEFAULT_SIZE;
  const long = LONG_SIDE[typeof resolution === "string" ? resolution : "1K"];
  if (resolution !== undefined && long === undefined) {
    throw new RangeError(`resolution "${String(resolution)}" is not 1K, 2K or 4K`);
  }
  const ratio = aspectRatio === undefined ? [1, 1] : parsePair(String(aspectRatio), ":");
  if (!ratio) throw new RangeError(`aspect_ratio "${String(aspectRatio)}" is not W:H`);
  const [w, h] = ratio as [number, number];
  const side = long ?? 1024;
  if (w >= h) return { width: side, height: roundTo8((side * h) / w) };
  return { width: roundTo8((side * w) / h), height: side };
}
