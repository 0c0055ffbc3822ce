import { CREATE_OPERATIONS, EDIT_OPERATIONS, type ImageJob, isMask } from "../types.ts";

/** job.input fields the OpenAI Images API knows, sent only when set. */
const PASSED_FIELDS = ["n", "size", "quality", "background", "output_format", "response_format"];

export type Endpoint = "generations" | "edits";

export function endpointOf(operation: string): Endpoint | null {
  if (CREATE_OPERATIONS.has(operation)) return "generations";
  if (EDIT_OPERATIONS.has(operation)) return "edits";
  return null;
}

function passedFields(job: ImageJob): [string, string | number][] {
  const fields: [string, string | number][] = [];
  for (const field of PASSED_FIELDS) {
    const value = job.input[field];
    if (typeof value === "string" || typeof value === "number") fields.push([field, value]);
  }
  return fields;
}

/** `POST /images/generations` body: JSON with model, prompt and the set fields. */
export function generationsBody(job: ImageJob, prompt: string): string {
  return JSON.stringify({
    model: job.upstreamModel,
    prompt,
    ...Object.fromEntries(passedFields(job)),
  });
}

/**
 * `POST /images/edits` body: multipart with one `image` part, or repeated `image[]` parts
 * for several (as the OpenAI API names them), an optional `mask` part and the fields.
 * Built anew for every attempt, so no consumed stream is ever sent twice.
 */
export function editsBody(job: ImageJob, prompt: string): FormData {
  const form = new FormData();
  form.set("model", job.upstreamModel);
  form.set("prompt", prompt);
  for (const [field, value] of passedFields(job)) form.set(field, String(value));
  const images = job.images.filter((image) => !isMask(image));
  const part = images.length === 1 ? "image" : "image[]";
  images.forEach((image, i) => {
    const blob = new Blob([image.bytes], { type: image.contentType });
    form.append(part, blob, image.filename || `image-${i + 1}`);
  });
  const mask = job.images.find(isMask);
  if (mask) {
    form.append(
      "mask",
      new Blob([mask.bytes], { type: mask.contentType }),
      mask.filename || "mask",
    );
  }
  return form;
}
