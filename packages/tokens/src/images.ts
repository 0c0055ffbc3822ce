import { imageSize } from "image-size";

/**
 * Tokens of one image in a message, by the rule message-API providers publish: an image is
 * scaled to fit a 1568 px long edge and about 1.15 megapixels, then costs width × height /
 * 750 tokens. Without a readable size (a URL, which is never fetched, or bytes that do not
 * parse) the cost of the largest image, 1,600 tokens, is assumed: an estimate that errs high.
 */
export const UNKNOWN_IMAGE_TOKENS = 1_600;
const MAX_EDGE = 1_568;
const MAX_PIXELS = 1_200_000;

export function imageTokensForSize(width: number, height: number): number {
  let scale = Math.min(1, MAX_EDGE / Math.max(width, height));
  const pixels = width * scale * (height * scale);
  if (pixels > MAX_PIXELS) scale *= Math.sqrt(MAX_PIXELS / pixels);
  const tokens = Math.ceil((Math.round(width * scale) * Math.round(height * scale)) / 750);
  return Math.min(Math.max(tokens, 1), UNKNOWN_IMAGE_TOKENS);
}

/** Tokens of a base64 image source, read from its header only (no pixels decoded). */
export function base64ImageTokens(data: string): number {
  try {
    // The header is within the first few kilobytes; decoding only those keeps this cheap.
    const head = Buffer.from(data.slice(0, 65_536), "base64");
    const { width, height } = imageSize(head);
    if (!width || !height) return UNKNOWN_IMAGE_TOKENS;
    return imageTokensForSize(width, height);
  } catch {
    return UNKNOWN_IMAGE_TOKENS;
  }
}
