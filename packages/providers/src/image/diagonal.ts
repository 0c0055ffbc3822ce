/**
 * A diagonal image: pixel (x, y) is `line[x + y]`, so the whole picture is described by
 * `width + height - 1` pixels (row y is the line from pixel y on). The offline provider
 * draws its pictures, masks and layers this way and `encodeImage` (sharp) encodes them;
 * identical lines hit the encoded-file cache.
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
