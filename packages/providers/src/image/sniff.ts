import { imageSize } from "image-size";

export type SniffedFormat = "png" | "jpeg" | "webp" | "gif";
export interface SniffedImage {
  format: SniffedFormat;
  width: number;
  height: number;
}

const FORMATS: Record<string, SniffedFormat> = {
  png: "png",
  jpg: "jpeg",
  webp: "webp",
  gif: "gif",
};

/**
 * Format and pixel size of an image from its header alone (`image-size`: PNG IHDR, JPEG
 * SOFn, WebP VP8/VP8L/VP8X, GIF screen), or null when the bytes are none of these four or
 * their header does not parse. It decodes no pixels, so a header declaring 100000x100000
 * costs microseconds to read and is refused by its declared size (`sourceSizeProblem`).
 */
export function sniffImage(bytes: Uint8Array): SniffedImage | null {
  try {
    const { type, width, height } = imageSize(bytes);
    const format = type ? FORMATS[type] : undefined;
    if (!format || !width || !height) return null;
    return { format, width, height };
  } catch {
    return null;
  }
}
