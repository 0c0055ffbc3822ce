export type SniffedFormat = "png" | "jpeg" | "webp" | "gif";
export interface SniffedImage {
  format: SniffedFormat;
  width: number;
  height: number;
}

/** JPEG markers that start a frame header (SOF0..SOF15 less DHT, JPG and DAC). */
const SOF_MARKERS = new Set([
  0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf,
]);

function ascii(bytes: Uint8Array, at: number, text: string): boolean {
  if (bytes.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

function sized(format: SniffedFormat, width: number, height: number): SniffedImage | null {
  return width > 0 && height > 0 ? { format, width, height } : null;
}

function sniffPng(view: DataView, bytes: Uint8Array): SniffedImage | null {
  if (bytes.length < 24 || !ascii(bytes, 12, "IHDR")) return null;
  return sized("png", view.getUint32(16), view.getUint32(20));
}

function sniffJpeg(view: DataView, bytes: Uint8Array): SniffedImage | null {
  let at = 2;
  // Each step moves forward by at least two bytes, so the walk ends within the buffer.
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) return null; // scan or end before any frame
    if (SOF_MARKERS.has(marker)) {
      if (at + 9 > bytes.length) return null;
      return sized("jpeg", view.getUint16(at + 7), view.getUint16(at + 5));
    }
    at += 2 + view.getUint16(at + 2);
  }
  return null;
}

function sniffWebp(view: DataView, bytes: Uint8Array): SniffedImage | null {
  if (ascii(bytes, 12, "VP8 ") && bytes.length >= 30) {
    if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) return null;
    return sized("webp", view.getUint16(26, true) & 0x3fff, view.getUint16(28, true) & 0x3fff);
  }
  if (ascii(bytes, 12, "VP8L") && bytes.length >= 25) {
    if (bytes[20] !== 0x2f) return null;
    const bits = view.getUint32(21, true);
    return sized("webp", (bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (ascii(bytes, 12, "VP8X") && bytes.length >= 30) {
    const u24 = (at: number) => bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16);
    return sized("webp", u24(24) + 1, u24(27) + 1);
  }
  return null;
}

/**
 * Format and pixel size of an image from its header alone (PNG IHDR, JPEG SOFn, WebP
 * VP8/VP8L/VP8X, GIF logical screen), or null when the bytes are none of these. It does not
 * decode pixels, so a truncated body with a good header still sniffs.
 */
export function sniffImage(bytes: Uint8Array): SniffedImage | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length >= 8 && bytes[0] === 0x89 && ascii(bytes, 1, "PNG\r\n\x1a\n")) {
    return sniffPng(view, bytes);
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    return sniffJpeg(view, bytes);
  }
  if (ascii(bytes, 0, "RIFF") && ascii(bytes, 8, "WEBP")) return sniffWebp(view, bytes);
  if ((ascii(bytes, 0, "GIF87a") || ascii(bytes, 0, "GIF89a")) && bytes.length >= 10) {
    return sized("gif", view.getUint16(6, true), view.getUint16(8, true));
  }
  return null;
}
