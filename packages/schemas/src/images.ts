import { type Static, Type } from "@sinclair/typebox";
import { Billing } from "./media.ts";

/** Spec 2.3: one result file. Segment-map masks also carry `index` (kept as is, 0 included) and `name`. */
export const ImageData = Type.Object({
  url: Type.Optional(
    Type.String({ description: "Signed link; bearer-style, expires (at most 13 days)." }),
  ),
  b64_json: Type.Optional(Type.String({ description: "The file, base64-encoded." })),
  content_type: Type.String({ description: "image/png, image/jpeg or image/webp." }),
  index: Type.Optional(Type.Integer({ minimum: 0, description: "Mask index (segment-map)." })),
  name: Type.Optional(Type.String({ description: "Mask name (segment-map)." })),
});
export type ImageData = Static<typeof ImageData>;

/** The answer of both image endpoints once the task finished (spec 4.1, 4.2). */
export const ImagesResult = Type.Object({
  id: Type.String({ description: "The task id; also in the X-Task-Id header." }),
  task_id: Type.String({ description: "The same task id." }),
  object: Type.Literal("image.result"),
  created: Type.Integer({ description: "Unix seconds of completion." }),
  model: Type.String(),
  operation: Type.String(),
  data: Type.Array(ImageData),
  billing: Billing,
});
export type ImagesResult = Static<typeof ImagesResult>;

/** GET /v1/images/tasks/{task_id}: a task looked up after a dropped connection. */
export const ImageTask = Type.Object({
  id: Type.String(),
  task_id: Type.String(),
  object: Type.Literal("image.task"),
  status: Type.Union([
    Type.Literal("queued"),
    Type.Literal("processing"),
    Type.Literal("completed"),
    Type.Literal("failed"),
  ]),
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  model: Type.String(),
  operation: Type.String(),
  created_at: Type.Integer({ description: "Unix seconds." }),
  finished_at: Type.Union([Type.Integer(), Type.Null()]),
  data: Type.Optional(Type.Array(ImageData)),
  billing: Type.Optional(Billing),
  failReason: Type.Optional(Type.String({ description: "Why the task failed (spec 7.2)." })),
  error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
});
export type ImageTask = Static<typeof ImageTask>;

/** The multipart form of POST /v1/images/edits, for the OpenAPI page. */
export const ImageEditForm = Type.Object({
  model: Type.String(),
  prompt: Type.Optional(Type.String()),
  operation: Type.Optional(Type.String()),
  image: Type.Array(Type.String({ format: "binary" }), {
    description: "Source image files (PNG, JPEG, WebP; 20 MB each); repeat the field.",
  }),
  mask: Type.Optional(Type.String({ format: "binary" })),
  input: Type.Optional(Type.String({ description: "A JSON-encoded object: the model's input." })),
  n: Type.Optional(Type.String()),
  size: Type.Optional(Type.String()),
  quality: Type.Optional(Type.String()),
  response_format: Type.Optional(Type.String()),
});
