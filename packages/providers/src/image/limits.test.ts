// Proves the source pixel limits: images whose headers declare more than 16384 pixels a
// side or 8192x8192 pixels in all are refused by their header (PNG, JPEG and WebP bombs of
// a few dozen bytes), the largest allowed sizes pass, and the offline provider answers such
// a source with a failure value instead of throwing from its encoder.
import { describe, expect, test } from "bun:test";
import { createOfflineProvider } from "../offline.ts";
import { jpegBomb, pngBomb, webpBomb } from "../testing/bombs.ts";
import type { ImageJob, SourceImage } from "../types.ts";
import { MAX_SOURCE_PIXELS, MAX_SOURCE_SIDE, sourceSizeProblem } from "./limits.ts";
import { sniffImage } from "./sniff.ts";

const sized = (bytes: Uint8Array) => {
  const sniffed = sniffImage(bytes);
  if (!sniffed) throw new Error("the fixture does not sniff");
  return sniffed;
};

describe("sourceSizeProblem", () => {
  test("the limits are the documented ones", () => {
    expect(MAX_SOURCE_SIDE).toBe(16_384);
    expect(MAX_SOURCE_PIXELS).toBe(8192 * 8192);
  });

  test("bombs in every format are refused by their header", () => {
    const png = sized(pngBomb(100_000, 100_000));
    expect(png).toMatchObject({ format: "png", width: 100_000, height: 100_000 });
    expect(sourceSizeProblem(png)).toContain("100000x100000");
    // Per side: a thin JPEG within the pixel limit but wider than 16384.
    const jpeg = sized(jpegBomb(20_000, 100));
    expect(jpeg).toMatchObject({ format: "jpeg", width: 20_000, height: 100 });
    expect(sourceSizeProblem(jpeg)).toContain("per side");
    // In all: a WebP within the side limit but over 8192x8192 pixels.
    const webp = sized(webpBomb(9000, 9000));
    expect(webp).toMatchObject({ format: "webp", width: 9000, height: 9000 });
    expect(sourceSizeProblem(webp)).toContain("67108864 pixels");
  });

  test("the largest allowed sizes pass", () => {
    expect(sourceSizeProblem(sized(pngBomb(8192, 8192)))).toBeNull();
    expect(sourceSizeProblem(sized(jpegBomb(16_384, 4096)))).toBeNull();
    expect(sourceSizeProblem(sized(webpBomb(4096, 16_384)))).toBeNull();
    expect(sourceSizeProblem({ width: 1, height: 1 })).toBeNull();
  });
});

describe("offline provider", () => {
  const provider = createOfflineProvider();
  const job = (operation: string, image: SourceImage): ImageJob => ({
    taskId: "t",
    model: "atlas-segment",
    upstreamModel: "atlas-segment",
    operation,
    input: {},
    images: [image],
  });
  const source = (bytes: Uint8Array): SourceImage => ({
    field: "image_url",
    bytes,
    contentType: "image/png",
    filename: "bomb.png",
  });

  for (const operation of ["segment-map", "layer-separation", "upscale", "image-edit"]) {
    test(`${operation} answers a bomb with invalid_request, never a throw`, async () => {
      const result = await provider.run(job(operation, source(pngBomb(100_000, 100_000))));
      expect(result).toMatchObject({ ok: false, code: "invalid_request", attempts: 1 });
      if (!result.ok) expect(result.message).toContain("100000x100000");
    });
  }

  test("masks and layers of a source wider than the encoders' 8192 are refused, not thrown", async () => {
    for (const operation of ["segment-map", "layer-separation"]) {
      const result = await provider.run(job(operation, source(pngBomb(16_000, 1000))));
      expect(result).toMatchObject({ ok: false, code: "invalid_request" });
    }
  });
});
