// Proves encodeImage (sharp) writes PNG, JPEG and lossless WebP files that decode at the
// stated size with the intended pixels (masks grey, layers with alpha), and that sniffImage
// (image-size) reads the size of these and of other encoders' files from their headers
// alone and refuses what is not one of the four formats.
import { describe, expect, test } from "bun:test";
import sharp from "sharp";
import type { DiagonalImage } from "./diagonal.ts";
import { digestOf, encodeImage, layerLine, maskLine, pictureLine, regionCuts } from "./render.ts";
import { sniffImage } from "./sniff.ts";

async function decode(bytes: Uint8Array) {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  const pixel = (x: number, y: number) => {
    const at = (y * info.width + x) * info.channels;
    return [...data.subarray(at, at + info.channels)];
  };
  return { width: info.width, height: info.height, channels: info.channels, pixel };
}

function expected(image: DiagonalImage, x: number, y: number): number[] {
  const at = (x + y) * image.channels;
  return [...image.line.subarray(at, at + image.channels)];
}

const SIZES: [number, number][] = [
  [1, 1],
  [1, 9],
  [9, 1],
  [13, 7],
  [256, 256],
  [1024, 576],
  [5000, 40],
];

describe("encoders", () => {
  for (const [width, height] of SIZES) {
    test(`${width}x${height} decodes at its size in every format`, async () => {
      const image = pictureLine(digestOf("codec", width, height), width, height);
      for (const format of ["png", "jpeg", "webp"] as const) {
        const bytes = await encodeImage(image, format);
        const decoded = await decode(bytes);
        expect([format, decoded.width, decoded.height]).toEqual([format, width, height]);
        expect(sniffImage(bytes)).toEqual({ format, width, height });
        const [x, y] = [Math.floor(width / 2), Math.floor(height / 2)];
        const got = decoded.pixel(x, y).slice(0, 3);
        if (format === "jpeg") {
          // Lossy: each channel within a small distance of the source.
          for (const [c, value] of expected(image, x, y).entries()) {
            expect(Math.abs(got[c]! - value)).toBeLessThan(24);
          }
        } else {
          expect(got).toEqual(expected(image, x, y));
        }
      }
    });
  }

  test("lossless formats keep every pixel of a picture", async () => {
    const image = pictureLine(digestOf("every pixel"), 97, 61);
    for (const format of ["png", "webp"] as const) {
      const decoded = await decode(await encodeImage(image, format));
      for (let y = 0; y < 61; y += 5) {
        for (let x = 0; x < 97; x += 3) expect(decoded.pixel(x, y)).toEqual(expected(image, x, y));
      }
    }
  });

  test("masks are grey and layers carry alpha, in PNG and WebP", async () => {
    const digest = digestOf("parts");
    const cuts = regionCuts(digest, 120 + 80 - 1, 4);
    const mask = maskLine(cuts, 1, 120, 80);
    const layer = layerLine(digest, cuts, 2, 120, 80);
    for (const format of ["png", "webp"] as const) {
      const maskPixels = await decode(await encodeImage(mask, format));
      const layerPixels = await decode(await encodeImage(layer, format));
      expect(layerPixels.channels).toBe(4);
      for (let k = 0; k < 199; k += 7) {
        const [x, y] = [Math.min(k, 119), k - Math.min(k, 119)];
        expect(maskPixels.pixel(x, y)[0]).toBe(expected(mask, x, y)[0]!);
        expect(layerPixels.pixel(x, y)).toEqual(expected(layer, x, y));
      }
    }
    expect((await sharp(await encodeImage(mask, "png")).metadata()).channels).toBe(1);
  });

  test("a 4K picture encodes and decodes in every format", async () => {
    const image = pictureLine(digestOf("4k"), 4096, 2304);
    for (const format of ["png", "jpeg", "webp"] as const) {
      const metadata = await sharp(await encodeImage(image, format)).metadata();
      expect([metadata.format, metadata.width, metadata.height]).toEqual([format, 4096, 2304]);
    }
  });

  test("the encoded-file cache hands out copies", async () => {
    const image = pictureLine(digestOf("copies"), 32, 32);
    const first = await encodeImage(image, "png");
    first[0] = 0;
    expect((await encodeImage(image, "png"))[0]).toBe(0x89);
  });
});

describe("sniffImage", () => {
  test("reads files written by another encoder", async () => {
    const base = sharp({ create: { width: 321, height: 123, channels: 4, background: "#08f8" } });
    const files = {
      png: await base.clone().png().toBuffer(),
      jpeg: await base.clone().jpeg({ progressive: true }).withMetadata().toBuffer(),
      webp: await base.clone().webp({ quality: 50 }).toBuffer(), // lossy with alpha: VP8X
      gif: await base.clone().gif().toBuffer(),
    };
    const lossyOpaque = await sharp({
      create: { width: 33, height: 17, channels: 3, background: "#f00" },
    })
      .webp({ quality: 50 })
      .toBuffer(); // simple lossy: "VP8 "
    for (const [format, bytes] of Object.entries(files)) {
      expect(sniffImage(new Uint8Array(bytes))).toEqual({
        format,
        width: 321,
        height: 123,
      } as never);
    }
    expect(sniffImage(new Uint8Array(lossyOpaque))).toEqual({
      format: "webp",
      width: 33,
      height: 17,
    });
  });

  test("answers null for what is not an image header", async () => {
    const png = await encodeImage(pictureLine(digestOf("x"), 8, 8), "png");
    const jpeg = await encodeImage(pictureLine(digestOf("x"), 8, 8), "jpeg");
    expect(sniffImage(new Uint8Array())).toBeNull();
    expect(sniffImage(new TextEncoder().encode("<html>not an image</html>"))).toBeNull();
    expect(sniffImage(png.subarray(0, 12))).toBeNull();
    expect(sniffImage(jpeg.subarray(0, 20))).toBeNull();
    expect(sniffImage(new TextEncoder().encode("RIFF\0\0\0\0WEBPVP8 "))).toBeNull();
  });
});
