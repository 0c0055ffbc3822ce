import { createHash } from "node:crypto";
import sharp from "sharp";
import { assertDiagonal, type DiagonalImage } from "./diagonal.ts";

export type OutputFormat = "png" | "jpeg" | "webp";
export const CONTENT_TYPES: Record<OutputFormat, string> = {
  png: "image/png",
  jpeg: "image/jpeg",
  webp: "image/webp",
};

/** SHA-256 over the JSON of `parts`: the seed of every colour and cut in a picture. */
export function digestOf(...parts: unknown[]): Uint8Array {
  return new Uint8Array(createHash("sha256").update(JSON.stringify(parts)).digest());
}

export function bytesDigest(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function mix(a: number, b: number, t: number): number {
  return Math.round(a + (b - a) * t);
}

/** A diagonal gradient between two colours from the digest, crossed by accent stripes. */
export function pictureLine(digest: Uint8Array, width: number, height: number): DiagonalImage {
  const pixels = width + height - 1;
  const line = new Uint8Array(pixels * 3);
  const from = [digest[0]!, digest[1]!, digest[2]!];
  const to = [digest[3]!, digest[4]!, digest[5]!];
  const accent = [digest[6]!, digest[7]!, digest[8]!];
  const period = 24 + (digest[9]! % 72);
  const phase = digest[10]!;
  for (let k = 0; k < pixels; k++) {
    const t = pixels === 1 ? 0 : k / (pixels - 1);
    const stripe = (k + phase) % period < period / 3;
    for (let c = 0; c < 3; c++) {
      const base = mix(from[c]!, to[c]!, t);
      line[k * 3 + c] = stripe ? mix(base, accent[c]!, 0.5) : base;
    }
  }
  return { width, height, channels: 3, line };
}

/**
 * `count` regions that partition the picture into diagonal bands, with cut points jittered
 * by the digest; region i spans line positions [cuts[i], cuts[i + 1]). Never empty.
 */
export function regionCuts(digest: Uint8Array, pixels: number, count: number): number[] {
  const cuts = [0];
  const band = pixels / count;
  for (let i = 1; i < count; i++) {
    const jitter = ((digest[(11 + i) % digest.length]! / 255) * 0.6 - 0.3) * band;
    cuts.push(Math.max(cuts[i - 1]!, Math.min(pixels, Math.round(band * i + jitter))));
  }
  cuts.push(pixels);
  return cuts;
}

/** A black-and-white mask: white on region `index`, black elsewhere. */
export function maskLine(
  cuts: number[],
  index: number,
  width: number,
  height: number,
): DiagonalImage {
  const line = new Uint8Array(width + height - 1);
  line.fill(255, cuts[index]!, cuts[index + 1]!);
  return { width, height, channels: 1, line };
}

/** Layer 0 is the opaque background; layer i > 0 is opaque on region i and transparent elsewhere. */
export function layerLine(
  digest: Uint8Array,
  cuts: number[],
  index: number,
  width: number,
  height: number,
): DiagonalImage {
  const picture = pictureLine(digestOf([...digest], "layer", index), width, height).line;
  const pixels = width + height - 1;
  const line = new Uint8Array(pixels * 4);
  const [start, end] = index === 0 ? [0, pixels] : [cuts[index]!, cuts[index + 1]!];
  for (let k = start; k < end; k++) {
    line.set(picture.subarray(k * 3, k * 3 + 3), k * 4);
    line[k * 4 + 3] = 255;
  }
  return { width, height, channels: 4, line };
}

/**
 * Encoded files by (format, size, channels, line digest), least recently used out first.
 * Identical requests (benchmarks, retries, the stub's default answer) then cost a lookup.
 */
class EncodedCache {
  private readonly entries = new Map<string, Uint8Array>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): Uint8Array | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, value: Uint8Array): void {
    if (value.length > this.maxBytes / 4) return;
    this.entries.set(key, value);
    this.bytes += value.length;
    for (const [oldKey, oldValue] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldKey);
      this.bytes -= oldValue.length;
    }
  }
}

const CACHE_BYTES = 64 * 1024 * 1024;
const cache = new EncodedCache(CACHE_BYTES);

/** The full pixel buffer of a diagonal image: row y is the line from pixel y on. */
function rawPixels({ width, height, channels, line }: DiagonalImage): Buffer {
  const raw = Buffer.allocUnsafe(width * height * channels);
  const rowBytes = width * channels;
  for (let y = 0; y < height; y++)
    raw.set(line.subarray(y * channels, y * channels + rowBytes), y * rowBytes);
  return raw;
}

/**
 * Encodes through libvips (sharp): PNG and WebP lossless (fast settings: these are
 * generated pictures), JPEG at quality 90. Greyscale masks stay one channel, layers keep
 * their alpha.
 */
async function encodeWithSharp(image: DiagonalImage, format: OutputFormat): Promise<Uint8Array> {
  const { width, height, channels } = image;
  let pipeline = sharp(rawPixels(image), { raw: { width, height, channels } });
  if (channels === 1) pipeline = pipeline.toColourspace("b-w");
  const encoded =
    format === "png"
      ? pipeline.png({ compressionLevel: 3, adaptiveFiltering: false })
      : format === "jpeg"
        ? pipeline.jpeg({ quality: 90, chromaSubsampling: "4:2:0" })
        : pipeline.webp({ lossless: true, effort: 0 });
  return new Uint8Array(await encoded.toBuffer());
}

/** Encodes a diagonal image; the result is a fresh copy the caller may keep or change. */
export async function encodeImage(image: DiagonalImage, format: OutputFormat): Promise<Uint8Array> {
  assertDiagonal(image);
  const key = `${format}:${image.width}x${image.height}:${image.channels}:${bytesDigest(image.line)}`;
  let encoded = cache.get(key);
  if (!encoded) {
    encoded = await encodeWithSharp(image, format);
    cache.set(key, encoded);
  }
  return encoded.slice();
}
