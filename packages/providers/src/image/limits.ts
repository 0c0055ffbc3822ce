/**
 * Most pixels a source image may declare in all: 8192 x 8192 (67,108,864), the largest
 * picture the catalog makes (a 4x upscale), so every result can be a source again. A
 * header that declares 100000 x 100000 costs a few dozen bytes to write and a decoder
 * 40 GB to honour, so the limit is checked on the header, before anything is held.
 */
export const MAX_SOURCE_PIXELS = 8192 * 8192;
/** Most pixels per side: wide panoramas pass, thin strips that would stall a decoder do not. */
export const MAX_SOURCE_SIDE = 16_384;

/**
 * Why a source of this declared size is refused, as the end of a sentence naming the
 * source ("image[0] declares ..."), or null when it is within both limits.
 */
export function sourceSizeProblem(size: { width: number; height: number }): string | null {
  const { width, height } = size;
  if (width > MAX_SOURCE_SIDE || height > MAX_SOURCE_SIDE)
    return `declares ${width}x${height} pixels; a source image may have at most ${MAX_SOURCE_SIDE} pixels per side`;
  if (width * height > MAX_SOURCE_PIXELS)
    return `declares ${width}x${height} pixels; a source image may have at most ${MAX_SOURCE_PIXELS} pixels (8192x8192)`;
  return null;
}
