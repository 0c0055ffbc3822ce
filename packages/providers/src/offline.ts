import { MAX_SIDE } from "./image/diagonal.ts";
import { sourceSizeProblem } from "./image/limits.ts";
import {
  bytesDigest,
  CONTENT_TYPES,
  digestOf,
  encodeImage,
  layerLine,
  maskLine,
  type OutputFormat,
  pictureLine,
  regionCuts,
} from "./image/render.ts";
import { type SniffedImage, sniffImage } from "./image/sniff.ts";
import { imageSize } from "./size.ts";
import {
  CREATE_OPERATIONS,
  EDIT_OPERATIONS,
  failure,
  type ImageJob,
  isMask,
  type OutputFile,
  type Provider,
  type ProviderResult,
} from "./types.ts";
import { wait, yieldToEventLoop } from "./wait.ts";

/** Prompt markers that make the offline provider fail on purpose (see README). */
export const OFFLINE_MARKERS = {
  moderate: "[offline:moderate]",
  fail: "[offline:fail]",
} as const;

export const SEGMENT_NAMES = [
  "background",
  "subject",
  "sky",
  "foreground",
  "ground",
  "person",
  "building",
  "vegetation",
  "water",
  "vehicle",
  "text",
  "shadow",
];

export interface OfflineProviderOptions {
  /** Simulated upstream latency per job, so demos can watch a task run. Default 0. */
  latencyMs?: number;
  /** Most images one job may ask for (`n`). Default 10, as the OpenAI Images API. */
  maxImages?: number;
  /** Most masks a segment-map answers and layers a layer-separation makes. Default 32. */
  maxParts?: number;
}

interface Context {
  job: ImageJob;
  format: OutputFormat;
  options: Required<OfflineProviderOptions>;
  /** The first source that is not a mask, sniffed, with its bytes' digest. */
  source?: { sniffed: SniffedImage; digest: string };
}

type Outcome = OutputFile[] | ProviderResult;

/**
 * A provider that needs no network: it answers every image operation with real PNG, JPEG
 * or WebP files of the requested size, derived deterministically from (model, prompt,
 * seed, index) and, for operations on sources, the first source's bytes.
 */
export function createOfflineProvider(options: OfflineProviderOptions = {}): Provider {
  const resolved: Required<OfflineProviderOptions> = {
    latencyMs: options.latencyMs ?? 0,
    maxImages: options.maxImages ?? 10,
    maxParts: options.maxParts ?? 32,
  };
  return { name: "offline", run: (job) => runOffline(job, resolved) };
}

async function runOffline(
  job: ImageJob,
  options: Required<OfflineProviderOptions>,
): Promise<ProviderResult> {
  const prompt = job.prompt ?? "";
  if (prompt.includes(OFFLINE_MARKERS.moderate)) {
    return failure("moderation", "the prompt was blocked by the offline moderation marker", 1);
  }
  if (prompt.includes(OFFLINE_MARKERS.fail)) {
    return failure("upstream_error", "the offline provider failed on purpose (marker)", 1);
  }
  if (!(await wait(options.latencyMs, job.signal))) {
    return failure("upstream_timeout", "aborted by the caller", 1);
  }
  const context = prepare(job, options);
  if ("ok" in context) return context;
  const outcome = await produce(context);
  if (!Array.isArray(outcome)) return outcome;
  if (job.signal?.aborted) return failure("upstream_timeout", "aborted by the caller", 1);
  return { ok: true, files: outcome, attempts: 1 };
}

function prepare(
  job: ImageJob,
  options: Required<OfflineProviderOptions>,
): Context | ProviderResult {
  for (const [i, image] of job.images.entries()) {
    const sniffed = sniffImage(image.bytes);
    if (!sniffed) {
      return failure(
        "invalid_request",
        `source image ${i + 1} (${image.field}) is not a readable PNG, JPEG, WebP or GIF`,
        1,
      );
    }
    // The gateway checks this at submission; a provider used on its own must not trust it.
    const tooLarge = sourceSizeProblem(sniffed);
    if (tooLarge) return failure("invalid_request", `source image ${i + 1} ${tooLarge}`, 1);
  }
  const format = job.input.output_format ?? "png";
  if (format !== "png" && format !== "jpeg" && format !== "webp") {
    return failure(
      "invalid_request",
      `output_format "${String(format)}" is not png, jpeg or webp`,
      1,
    );
  }
  const first = job.images.find((image) => !isMask(image));
  const source = first && { sniffed: sniffImage(first.bytes)!, digest: bytesDigest(first.bytes) };
  return { job, format, options, ...(source && { source }) };
}

async function produce(context: Context): Promise<Outcome> {
  const { operation } = context.job;
  if (CREATE_OPERATIONS.has(operation)) return pictures(context, undefined);
  if (EDIT_OPERATIONS.has(operation)) {
    if (!context.source) return needsSource(operation);
    return pictures(context, context.source.digest);
  }
  if (operation === "upscale") return upscale(context);
  if (operation === "layer-separation") return layers(context);
  if (operation === "segment-map") return segments(context);
  return failure(
    "invalid_request",
    `operation ${operation} is not supported by provider offline`,
    1,
  );
}

function needsSource(operation: string): ProviderResult {
  return failure("invalid_request", `operation ${operation} needs a source image`, 1);
}

/** Masks and layers have the source's size, and the encoders write at most MAX_SIDE a side. */
function tooWide(operation: string, width: number, height: number): ProviderResult {
  return failure(
    "invalid_request",
    `operation ${operation} makes files of the source size, at most ${MAX_SIDE} pixels per side here; the source is ${width}x${height}`,
    1,
  );
}

function integerInput(
  context: Context,
  field: string,
  fallback: number,
  max: number,
): number | ProviderResult {
  const value = context.job.input[field] ?? fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > max) {
    return failure("invalid_request", `${field} must be an integer from 1 to ${max}`, 1);
  }
  return value;
}

function file(bytes: Uint8Array, format: OutputFormat): OutputFile {
  return { bytes, contentType: CONTENT_TYPES[format], ext: format };
}

/** Create and edit modes: `n` pictures of the requested size, tinted by the source when editing. */
async function pictures(context: Context, sourceDigest: string | undefined): Promise<Outcome> {
  const { job, format } = context;
  const count = integerInput(context, "n", 1, context.options.maxImages);
  if (typeof count !== "number") return count;
  let size: { width: number; height: number };
  try {
    size = imageSize(job.input);
  } catch (error) {
    return failure("invalid_request", (error as RangeError).message, 1);
  }
  const files: OutputFile[] = [];
  for (let index = 0; index < count; index++) {
    const digest = digestOf(
      job.model,
      job.prompt ?? "",
      job.input.seed ?? null,
      index,
      sourceDigest,
    );
    files.push(
      file(await encodeImage(pictureLine(digest, size.width, size.height), format), format),
    );
    await yieldToEventLoop();
  }
  return files;
}

/** One picture of the source size times `scale`, shrunk evenly to fit 8192 per side. */
async function upscale(context: Context): Promise<Outcome> {
  const { job, format, source } = context;
  if (!source) return needsSource(job.operation);
  const scale = integerInput(context, "scale", 2, 16);
  if (typeof scale !== "number") return scale;
  const { width, height } = source.sniffed;
  const factor = Math.min(scale, MAX_SIDE / width, MAX_SIDE / height);
  const w = Math.max(1, Math.floor(width * factor));
  const h = Math.max(1, Math.floor(height * factor));
  const digest = digestOf(job.model, "upscale", source.digest);
  return [file(await encodeImage(pictureLine(digest, w, h), format), format)];
}

/** `layers` RGBA PNGs of the source size: an opaque background, then one region each. */
async function layers(context: Context): Promise<Outcome> {
  const { job, source } = context;
  if (!source) return needsSource(job.operation);
  const count = integerInput(context, "layers", 4, context.options.maxParts);
  if (typeof count !== "number") return count;
  const { width, height } = source.sniffed;
  if (width > MAX_SIDE || height > MAX_SIDE) return tooWide(job.operation, width, height);
  const digest = digestOf(job.model, "layers", source.digest, job.prompt ?? "");
  const cuts = regionCuts(digest, width + height - 1, count);
  const files: OutputFile[] = [];
  for (let index = 0; index < count; index++) {
    files.push(
      file(await encodeImage(layerLine(digest, cuts, index, width, height), "png"), "png"),
    );
    await yieldToEventLoop();
  }
  return files;
}

/**
 * Black-and-white PNG masks that partition the source (512x512 without one), indexed from
 * 0 and named. How many the picture "has" comes from its digest (4 to 8), capped by max_masks.
 */
async function segments(context: Context): Promise<Outcome> {
  const { job, source } = context;
  const maxMasks = integerInput(context, "max_masks", 8, context.options.maxParts);
  if (typeof maxMasks !== "number") return maxMasks;
  const { width, height } = source?.sniffed ?? { width: 512, height: 512 };
  if (width > MAX_SIDE || height > MAX_SIDE) return tooWide(job.operation, width, height);
  const digest = digestOf(job.model, "segments", source?.digest ?? null, job.prompt ?? "");
  const count = Math.min(maxMasks, 4 + (digest[0]! % 5));
  const cuts = regionCuts(digest, width + height - 1, count);
  const files: OutputFile[] = [];
  for (let index = 0; index < count; index++) {
    const bytes = await encodeImage(maskLine(cuts, index, width, height), "png");
    files.push({ ...file(bytes, "png"), index, name: SEGMENT_NAMES[index] ?? `region-${index}` });
    await yieldToEventLoop();
  }
  return files;
}
