import { sniffImage, sourceSizeProblem } from "@gw/providers";
import { MediaCallBody } from "@gw/schemas";
import { type Upload, uploadRef } from "@gw/tasks";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { ApiError } from "../../errors.ts";
import { type BodyPolicy, parseJsonText } from "../../plugins/body/index.ts";

/** Spec 4.2 rule 1 and section 8: at most 20 MB per image file. */
export const MAX_IMAGE_FILE_BYTES = 20 * 1024 * 1024;
/** Source images plus a mask, each within the per-file limit, plus the text fields. */
export const MAX_FILES = 17;
export const EDIT_MAX_BODY_BYTES = MAX_FILES * MAX_IMAGE_FILE_BYTES + 1024 * 1024;
/** The files and one part for each text field (TEXT_FIELDS, `input` and `n`). */
export const MAX_FORM_PARTS = MAX_FILES + 8;

/** What the edit route reads as a body (plugins/body): JSON, or a bounded form. */
export const EDIT_BODY: BodyPolicy = {
  multipart: {
    maxBytes: EDIT_MAX_BODY_BYTES,
    maxPartBytes: MAX_IMAGE_FILE_BYTES,
    maxParts: MAX_FORM_PARTS,
    partLimitNote: "20 MB per image",
  },
};

const checkBody = TypeCompiler.Compile(MediaCallBody);
const TEXT_FIELDS = [
  "model",
  "prompt",
  "operation",
  "size",
  "quality",
  "response_format",
  "webhook_url",
] as const;
const KNOWN = new Set<string>([...TEXT_FIELDS, "image", "image[]", "mask", "input", "n"]);
const FORMATS = new Set(["png", "jpeg", "webp"]);

/** A body that fails the shared request schema, described by its first problem. */
export function checkCallBody(body: unknown): MediaCallBody {
  if (checkBody.Check(body)) return body;
  const first = checkBody.Errors(body).First();
  const field = first?.path.replace(/^\//, "").replaceAll("/", ".") ?? "";
  throw new ApiError(
    "invalid_request",
    field ? `Invalid body field '${field}': ${first!.message}` : "Invalid body",
  );
}

async function readImage(file: File, label: string): Promise<Upload> {
  if (file.size > MAX_IMAGE_FILE_BYTES)
    throw new ApiError(
      "payload_too_large",
      `${label} is ${file.size} bytes; each image may be at most ${MAX_IMAGE_FILE_BYTES} bytes (20 MB)`,
    );
  const bytes = new Uint8Array(await file.arrayBuffer());
  const sniffed = sniffImage(bytes);
  if (!sniffed || !FORMATS.has(sniffed.format))
    throw new ApiError("invalid_request", `${label} is not a PNG, JPEG or WebP image`);
  const tooLarge = sourceSizeProblem(sniffed); // by the header: a bomb is refused before a hold
  if (tooLarge) throw new ApiError("source_image_invalid", `${label} ${tooLarge}`);
  return { bytes, contentType: `image/${sniffed.format}`, filename: file.name || label };
}

function text(form: FormData, name: string): string | undefined {
  const values = form.getAll(name);
  if (values.length > 1) throw new ApiError("invalid_request", `Field '${name}' is sent twice`);
  const value = values[0];
  if (value === undefined) return undefined;
  if (typeof value !== "string")
    throw new ApiError("invalid_request", `Field '${name}' must be text, not a file`);
  return value;
}

function parseInput(raw: string | undefined): Record<string, unknown> | undefined {
  if (raw === undefined || raw === "") return undefined;
  // The body's own rules apply inside it too: nesting depth and no NUL.
  const value = parseJsonText(raw, "Field 'input'");
  if (value === undefined || value === null || typeof value !== "object" || Array.isArray(value))
    throw new ApiError("invalid_request", "Field 'input' must be a JSON-encoded object");
  return value as Record<string, unknown>;
}

/**
 * Turns a multipart edit (spec 4.2 form 2) into the same body the JSON form sends:
 * each uploaded file becomes an `upload:<n>` reference in `image` or `mask`, so one
 * validation path serves both forms. Files are size- and format-checked here.
 */
export async function parseEditForm(
  form: FormData,
): Promise<{ body: MediaCallBody; uploads: Upload[] }> {
  for (const name of new Set(form.keys()))
    if (!KNOWN.has(name))
      throw new ApiError(
        "invalid_request",
        `Unknown form field '${name}'; model settings go in the JSON field 'input'`,
      );
  const uploads: Upload[] = [];
  const images: string[] = [];
  const sent = [...form.getAll("image"), ...form.getAll("image[]")];
  if (sent.length > 16) throw new ApiError("invalid_request", "At most 16 image files");
  for (const [index, value] of sent.entries()) {
    if (typeof value === "string") images.push(value);
    else {
      uploads.push(await readImage(value, `image[${index}]`));
      images.push(uploadRef(uploads.length - 1));
    }
  }
  const maskValue = form.getAll("mask");
  if (maskValue.length > 1) throw new ApiError("invalid_request", "Field 'mask' is sent twice");
  let mask: string | undefined;
  if (typeof maskValue[0] === "string") mask = maskValue[0];
  else if (maskValue[0]) {
    uploads.push(await readImage(maskValue[0], "mask"));
    mask = uploadRef(uploads.length - 1);
  }
  const body: Record<string, unknown> = { input: parseInput(text(form, "input")) };
  for (const name of TEXT_FIELDS) body[name] = text(form, name);
  const n = text(form, "n");
  if (n !== undefined) body.n = /^\d{1,3}$/.test(n) ? Number(n) : n;
  if (images.length > 0) body.image = images;
  if (mask !== undefined) body.mask = mask;
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
  return { body: checkCallBody(body), uploads };
}
