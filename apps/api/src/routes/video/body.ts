import { VideoCallBody } from "@gw/schemas";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { ApiError } from "../../errors.ts";
import type { BodyPolicy } from "../../plugins/body/index.ts";
import { parseJsonText } from "../../plugins/body/index.ts";

/** The create routes take JSON or a small text-only form (the `openai` package sends one). */
export const VIDEO_BODY: BodyPolicy = {
  multipart: {
    maxBytes: 256 * 1024,
    maxPartBytes: 64 * 1024,
    maxParts: 8,
    partLimitNote: "64 KB per field",
  },
};

const check = TypeCompiler.Compile(VideoCallBody);
const FIELDS = ["model", "prompt", "operation", "seconds", "size", "input", "webhook_url"] as const;
const HEIGHTS: Record<number, string> = { 480: "480p", 720: "720p", 1080: "1080p" };

function checked(body: unknown): VideoCallBody {
  if (check.Check(body)) return body;
  const first = check.Errors(body).First();
  const field = first?.path.replace(/^\//, "").replaceAll("/", ".") ?? "";
  throw new ApiError(
    "invalid_request",
    field ? `Invalid body field '${field}': ${first!.message}` : "Invalid body",
  );
}

function fromForm(form: FormData): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const name of new Set(form.keys())) {
    if (name === "input_reference")
      throw new ApiError(
        "invalid_request",
        "Uploading input_reference is not supported; pass a public HTTPS image as input.image_url",
      );
    if (!(FIELDS as readonly string[]).includes(name))
      throw new ApiError("invalid_request", `Unknown form field '${name}'`);
    const values = form.getAll(name);
    if (values.length > 1 || typeof values[0] !== "string")
      throw new ApiError("invalid_request", `Field '${name}' must be sent once, as text`);
    body[name] = name === "input" ? parseJsonText(values[0], "Field 'input'") : values[0];
  }
  return body;
}

/** 16:9, 9:16 or 1:1 within rounding (854x480 is 16:9), else null. */
function aspectOf(width: number, height: number): string | null {
  const ratio = width / height;
  const near = (target: number) => Math.abs(ratio - target) / target < 0.01;
  return near(16 / 9) ? "16:9" : near(9 / 16) ? "9:16" : near(1) ? "1:1" : null;
}

/**
 * The create body as the media call the catalog validates: OpenAI's `seconds` becomes
 * `input.duration` and `size` (1280x720) becomes `input.resolution` + `input.aspect_ratio`,
 * unless `input` sets them itself.
 */
export function videoCall(raw: unknown): VideoCallBody & { input: Record<string, unknown> } {
  const body = checked(raw instanceof FormData ? fromForm(raw) : raw);
  const input: Record<string, unknown> = { ...body.input };
  if (body.seconds !== undefined) input.duration ??= Number(body.seconds);
  if (body.size !== undefined) {
    const [width, height] = body.size.split("x").map(Number) as [number, number];
    const resolution = HEIGHTS[Math.min(width, height)];
    const aspect = aspectOf(width, height);
    if (!resolution || !aspect)
      throw new ApiError(
        "invalid_request",
        `Invalid body field 'size': ${body.size} is not a 480, 720 or 1080 pixel 16:9, 9:16 or 1:1 frame`,
      );
    input.resolution ??= resolution;
    input.aspect_ratio ??= aspect;
  }
  return { ...body, input };
}
