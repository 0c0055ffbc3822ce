import { deflateSync } from "node:zlib";

/**
 * Image "bombs" for tests: tiny, well-formed headers that declare a huge picture. A
 * decoder would allocate width x height pixels for them; the gateway must refuse them by
 * their header alone.
 */

function u32be(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value);
  return bytes;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const typed = concat(new TextEncoder().encode(type), data);
  return concat(u32be(data.length), typed, u32be(Bun.hash.crc32(typed)));
}

/**
 * A PNG declaring `width` x `height` RGB pixels: signature, IHDR, one IDAT with a short
 * deflate stream (16 zero bytes, far fewer than the picture needs), IEND, each chunk with
 * its correct CRC. Under 70 bytes whatever the size.
 */
export function pngBomb(width: number, height: number): Uint8Array {
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, deflate, adaptive filters, no interlace
  return concat(
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", new Uint8Array(deflateSync(new Uint8Array(16)))),
    pngChunk("IEND", new Uint8Array()),
  );
}

/**
 * A JFIF header (APP0, as every real encoder writes), then a baseline frame header (SOF0,
 * three components) declaring the size, then EOI.
 */
export function jpegBomb(width: number, height: number): Uint8Array {
  const frame = new Uint8Array([
    0xff, 0xc0, 0x00, 0x11, 0x08, 0, 0, 0, 0, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11,
    0x01,
  ]);
  const view = new DataView(frame.buffer);
  view.setUint16(5, height);
  view.setUint16(7, width);
  const jfif = new Uint8Array([
    0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01,
    0x00, 0x00,
  ]);
  return concat(new Uint8Array([0xff, 0xd8]), jfif, frame, new Uint8Array([0xff, 0xd9]));
}

/** An extended WebP (RIFF, VP8X) declaring the canvas size, up to 2^24 per side. */
export function webpBomb(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(30);
  const view = new DataView(bytes.buffer);
  bytes.set(new TextEncoder().encode("RIFF"), 0);
  view.setUint32(4, 22, true);
  bytes.set(new TextEncoder().encode("WEBPVP8X"), 8);
  view.setUint32(16, 10, true);
  const u24 = (at: number, value: number) => {
    bytes[at] = value & 0xff;
    bytes[at + 1] = (value >>> 8) & 0xff;
    bytes[at + 2] = (value >>> 16) & 0xff;
  };
  u24(24, width - 1);
  u24(27, height - 1);
  return bytes;
}
