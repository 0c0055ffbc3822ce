import { deflateSync } from "node:zlib";

function u32be(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value);
  return bytes;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const typed = Buffer.concat([new TextEncoder().encode(type), data]);
  return Buffer.concat([u32be(data.length), typed, u32be(Bun.hash.crc32(typed))]);
}

/** A real, decodable RGB PNG of one colour: a source image an edit can take. */
export function solidPng(width: number, height: number, rgb: [number, number, number]): Uint8Array {
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 2, 0, 0, 0], 8);
  const row = new Uint8Array(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", new Uint8Array(deflateSync(pixels))),
    chunk("IEND", new Uint8Array()),
  ]);
}
