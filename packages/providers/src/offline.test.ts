// Proves the offline provider answers every image operation with real files (decoded by
// libvips) of the sizes and formats asked, deterministically, and fails as values: for
// unreadable sources, unsupported operations, its prompt markers and a caller's abort.
import { describe, expect, test } from "bun:test";
import sharp from "sharp";
import { digestOf, encodeImage, pictureLine } from "./image/render.ts";
import { createOfflineProvider, OFFLINE_MARKERS, SEGMENT_NAMES } from "./offline.ts";
import type { ImageJob, OutputFile, ProviderResult, SourceImage } from "./types.ts";

const provider = createOfflineProvider();

function job(overrides: Partial<ImageJob>): ImageJob {
  return {
    taskId: "task-1",
    model: "lumina-image-flare",
    upstreamModel: "lumina-flare-1",
    operation: "text-to-image",
    prompt: "a lighthouse at dusk",
    input: {},
    images: [],
    ...overrides,
  };
}

async function source(
  width: number,
  height: number,
  field = "image_url",
  seed = "src",
): Promise<SourceImage> {
  const bytes = await encodeImage(pictureLine(digestOf(seed), width, height), "jpeg");
  return { field, bytes, contentType: "image/jpeg", filename: "source.jpg" };
}

function files(result: ProviderResult): OutputFile[] {
  if (!result.ok) throw new Error(`expected success, got ${result.code}: ${result.message}`);
  return result.files;
}

async function dims(file: OutputFile) {
  const metadata = await sharp(file.bytes).metadata();
  return { format: metadata.format, width: metadata.width, height: metadata.height };
}

describe("create modes", () => {
  test("n images of the requested size in each output format", async () => {
    for (const format of ["png", "jpeg", "webp"] as const) {
      const result = await provider.run(
        job({ input: { n: 2, resolution: "1K", aspect_ratio: "16:9", output_format: format } }),
      );
      expect(result.attempts).toBe(1);
      const out = files(result);
      expect(out).toHaveLength(2);
      for (const file of out) {
        expect(file.ext).toBe(format);
        expect(file.contentType).toBe(`image/${format}`);
        expect(await dims(file)).toEqual({ format, width: 1024, height: 576 });
      }
    }
  });

  test("gpt-style size wins and png is the default format", async () => {
    const [file] = files(
      await provider.run(
        job({ model: "gpt-image-1", operation: "generate", input: { size: "1536x1024" } }),
      ),
    );
    expect(await dims(file!)).toEqual({ format: "png", width: 1536, height: 1024 });
  });

  test("4K works", async () => {
    const [file] = files(
      await provider.run(job({ input: { resolution: "4K", aspect_ratio: "3:4" } })),
    );
    expect(await dims(file!)).toEqual({ format: "png", width: 3072, height: 4096 });
  });

  test("the same (prompt, seed, model, index) gives the same bytes; any change differs", async () => {
    const run = async (overrides: Partial<ImageJob>) =>
      files(await provider.run(job({ input: { n: 2, seed: 7, size: "64x64" }, ...overrides })));
    const [a0, a1] = await run({});
    const [b0] = await run({});
    const [c0] = await run({ prompt: "a lighthouse at dawn" });
    const [d0] = await run({ model: "lumina-image-sunburst" });
    const [e0] = files(await provider.run(job({ input: { n: 1, seed: 8, size: "64x64" } })));
    expect(b0!.bytes).toEqual(a0!.bytes);
    for (const other of [a1, c0, d0, e0]) expect(other!.bytes).not.toEqual(a0!.bytes);
  });
});

describe("operations on sources", () => {
  test("edits answer n images of the requested size, tinted by the first source", async () => {
    const edit = (images: SourceImage[]) =>
      provider.run(job({ operation: "image-to-image", input: { n: 2, size: "96x64" }, images }));
    const one = files(await edit([await source(40, 30, "image_urls", "one")]));
    const other = files(await edit([await source(40, 30, "image_urls", "other")]));
    expect(one).toHaveLength(2);
    expect(await dims(one[0]!)).toEqual({ format: "png", width: 96, height: 64 });
    expect(other[0]!.bytes).not.toEqual(one[0]!.bytes);
    const masked = files(
      await provider.run(
        job({
          model: "patch-edit",
          operation: "region-edit",
          input: {},
          images: [await source(40, 30), await source(40, 30, "mask_url", "mask")],
        }),
      ),
    );
    expect(await dims(masked[0]!)).toEqual({ format: "png", width: 1024, height: 1024 });
  });

  test("upscale multiplies the source size by scale, capped at 8192 per side", async () => {
    const up = async (scale: number, width: number, height: number) =>
      provider.run(
        job({
          model: "crisp-upscale",
          operation: "upscale",
          prompt: undefined,
          input: { scale },
          images: [await source(width, height)],
        }),
      );
    expect(await dims(files(await up(4, 120, 90))[0]!)).toEqual({
      format: "png",
      width: 480,
      height: 360,
    });
    expect(await dims(files(await up(2, 300, 200))[0]!)).toEqual({
      format: "png",
      width: 600,
      height: 400,
    });
    expect(await dims(files(await up(4, 4000, 1000))[0]!)).toEqual({
      format: "png",
      width: 8192,
      height: 2048,
    });
  });

  test("layer-separation answers `layers` RGBA PNGs of the source size", async () => {
    const out = files(
      await provider.run(
        job({
          model: "patch-edit",
          operation: "layer-separation",
          prompt: undefined,
          input: { layers: 3 },
          images: [await source(80, 50)],
        }),
      ),
    );
    expect(out).toHaveLength(3);
    for (const file of out) {
      const metadata = await sharp(file.bytes).metadata();
      expect([metadata.format, metadata.width, metadata.height, metadata.hasAlpha]).toEqual([
        "png",
        80,
        50,
        true,
      ]);
    }
  });

  test("segment-map answers named black-and-white masks indexed from 0, at most max_masks", async () => {
    const segment = (input: Record<string, unknown>, images: SourceImage[]) =>
      provider.run(
        job({ model: "atlas-segment", operation: "segment-map", prompt: undefined, input, images }),
      );
    const out = files(await segment({}, [await source(64, 48)]));
    expect(out.length).toBeGreaterThanOrEqual(4);
    expect(out.length).toBeLessThanOrEqual(8);
    expect(out.map((file) => file.index)).toEqual([...out.keys()]);
    expect(out.map((file) => file.name)).toEqual(SEGMENT_NAMES.slice(0, out.length));
    expect((await sharp(out[0]!.bytes).metadata()).channels).toBe(1);
    // Together the black-and-white masks cover every pixel exactly once.
    const coverage = new Uint8Array(64 * 48);
    for (const file of out) {
      const { data, info } = await sharp(file.bytes).raw().toBuffer({ resolveWithObject: true });
      expect([info.width, info.height]).toEqual([64, 48]);
      for (let i = 0; i < coverage.length; i++) {
        const value = data[i * info.channels]!;
        coverage[i]! += value === 255 ? 1 : value === 0 ? 0 : 100;
      }
    }
    expect(new Set(coverage)).toEqual(new Set([1]));
    expect(files(await segment({ max_masks: 2 }, [await source(64, 48)]))).toHaveLength(2);
    const [unsized] = files(await segment({ max_masks: 1 }, []));
    expect(await dims(unsized!)).toEqual({ format: "png", width: 512, height: 512 });
  });
});

describe("failures are values", () => {
  test("a source sniffImage cannot read is invalid_request", async () => {
    const broken: SourceImage = {
      field: "image_urls",
      bytes: new TextEncoder().encode("<html>login</html>"),
      contentType: "text/html",
      filename: "x.png",
    };
    const result = await provider.run(job({ operation: "image-to-image", images: [broken] }));
    expect(result).toMatchObject({ ok: false, code: "invalid_request", attempts: 1 });
  });

  test("operations without their source, unknown operations and bad input are invalid_request", async () => {
    for (const overrides of [
      { operation: "upscale" },
      { operation: "image-edit" },
      { operation: "text-to-video" },
      { input: { size: "huge" } },
      { input: { n: 0 } },
      { input: { output_format: "bmp" } },
    ]) {
      expect(await provider.run(job(overrides))).toMatchObject({
        ok: false,
        code: "invalid_request",
      });
    }
  });

  test("prompt markers fail on purpose", async () => {
    const moderated = await provider.run(job({ prompt: `a cat ${OFFLINE_MARKERS.moderate}` }));
    const failed = await provider.run(job({ prompt: `a cat ${OFFLINE_MARKERS.fail}` }));
    expect(moderated).toMatchObject({ ok: false, code: "moderation", attempts: 1 });
    expect(failed).toMatchObject({ ok: false, code: "upstream_error", attempts: 1 });
  });

  test("a caller's abort during the simulated latency ends the job", async () => {
    const slow = createOfflineProvider({ latencyMs: 60_000 });
    const controller = new AbortController();
    const pending = slow.run(job({ signal: controller.signal }));
    controller.abort();
    expect(await pending).toMatchObject({
      ok: false,
      code: "upstream_timeout",
      message: "aborted by the caller",
    });
  });
});
