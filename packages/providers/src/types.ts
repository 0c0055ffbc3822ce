/** A source file fetched or uploaded for a job, in request order. */
export interface SourceImage {
  /** The catalog input field it came from, e.g. "image_urls", "input_urls", "mask_url", "image_url". */
  field: string;
  bytes: Uint8Array;
  contentType: string;
  filename: string;
}

export interface ImageJob {
  taskId: string;
  /** Public model id that runs, e.g. "gpt-image-1", "lumina-image-flare", "atlas-segment". */
  model: string;
  /** The provider's own model name. */
  upstreamModel: string;
  /** Catalog operation: "generate", "text-to-image", "image-to-image", "image-edit", "segment-map", ... */
  operation: string;
  prompt?: string;
  /** Normalised input: n, size, quality, output_format, resolution, aspect_ratio, seed, scale, max_masks, layers, background. */
  input: Record<string, unknown>;
  images: SourceImage[];
  signal?: AbortSignal;
}

export type OutputExt = "png" | "jpeg" | "webp";

export interface OutputFile {
  bytes: Uint8Array;
  contentType: string;
  ext: OutputExt;
  /** Only for segment-map masks: 0..k-1. */
  index?: number;
  /** Only for segment-map masks, e.g. "background", "subject". */
  name?: string;
}

export type ProviderFailureCode =
  | "moderation"
  | "invalid_request"
  | "upstream_error"
  | "upstream_timeout"
  | "upstream_unavailable"
  | "rate_limited";

export type ProviderResult =
  | { ok: true; files: OutputFile[]; attempts: number }
  | { ok: false; code: ProviderFailureCode; message: string; attempts: number };

/** Runs image jobs upstream. Expected failures are results; `run` throws only on programming errors. */
export interface Provider {
  readonly name: string;
  run(job: ImageJob): Promise<ProviderResult>;
}

/** Operations that create images from text alone. */
export const CREATE_OPERATIONS: ReadonlySet<string> = new Set(["generate", "text-to-image"]);
/** Operations that change source images following a prompt. */
export const EDIT_OPERATIONS: ReadonlySet<string> = new Set([
  "image-to-image",
  "image-edit",
  "edit",
  "region-edit",
]);

/** A source that is a mask (by its catalog field), not an image to edit. */
export function isMask(image: SourceImage): boolean {
  return image.field === "mask" || image.field.startsWith("mask_");
}

export function failure(
  code: ProviderFailureCode,
  message: string,
  attempts: number,
): ProviderResult {
  return { ok: false, code, message, attempts };
}
