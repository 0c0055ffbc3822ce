/**
 * A diagonal image: pixel (x, y) is `line[x + y]`, so the whole picture is described by
 * `width + height - 1` pixels. Every encoder here exploits that: PNG rows are shifted
 * copies, JPEG blocks repeat along diagonals, and WebP rows are one backward reference.
 * It is how the offline provider makes real, decodable 4K images in milliseconds.
 */
export interface DiagonalImage {
  width: number;
  height: number;
  /** 1 = grey, 3 = RGB, 4 = RGBA. */
  channels: 1 | 3 | 4;
  /** `(width + height - 1) * channels` bytes. */
  line: Uint8Array;
}

export const MAX_SIDE = 8192;

export function assertDiagonal(image: DiagonalImage): void {
  const { width, height, channels, line } = image;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new RangeError(`image size ${width}x${height} is not positive integers`);
  }
  if (width > MAX_SIDE || height > MAX_SIDE) {
    throw new RangeError(`image size ${width}x${height} exceeds ${MAX_SIDE} per side`);
  }
  if (line.length !== (width + height - 1) * channels) {
    throw new RangeError(
      `line has ${line.length} bytes, expected ${(width + height - 1) * channels}`,
    );
  }
}
