import { type Static, Type } from "@sinclair/typebox";
import { Billing } from "./media.ts";

/**
 * POST /v1/videos (alias POST /v1/video/generations): `{model, prompt, input}` as every media
 * call, plus OpenAI's `seconds` and `size` so the `openai` package's videos.create() works.
 * The same fields may come as a multipart form, as that package sends them.
 */
export const VideoCallBody = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 200, description: "Public model ID." }),
    prompt: Type.Optional(Type.String({ maxLength: 32_000 })),
    operation: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    input: Type.Optional(
      Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), {
        description:
          "resolution, duration, sound, aspect_ratio, seed, image_url; schemas in GET /v1/media/models.",
      }),
    ),
    seconds: Type.Optional(
      Type.String({ pattern: "^[0-9]{1,3}$", description: "OpenAI style: sets input.duration." }),
    ),
    size: Type.Optional(
      Type.String({
        pattern: "^[0-9]{2,5}x[0-9]{2,5}$",
        description: "OpenAI style, e.g. 1280x720: sets input.resolution and input.aspect_ratio.",
      }),
    ),
    webhook_url: Type.Optional(
      Type.String({
        maxLength: 2048,
        description:
          "HTTPS URL told when the task ends: a POST of the task object signed by Standard Webhooks (the account's secret).",
      }),
    ),
  },
  { additionalProperties: false },
);
export type VideoCallBody = Static<typeof VideoCallBody>;

/** The same fields as a multipart form (text fields only), as the `openai` package sends them. */
export const VideoCallForm = Type.Object({
  ...VideoCallBody.properties,
  input: Type.Optional(
    Type.String({ description: "A JSON-encoded object: the same `input` as in the JSON body." }),
  ),
});

/** The video object (OpenAI's videos API), with the billing of spec 2.4 in metadata. */
export const Video = Type.Object({
  id: Type.String(),
  object: Type.Literal("video"),
  model: Type.String(),
  status: Type.Union([
    Type.Literal("queued"),
    Type.Literal("in_progress"),
    Type.Literal("completed"),
    Type.Literal("failed"),
  ]),
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  created_at: Type.Integer({ description: "Unix seconds." }),
  completed_at: Type.Union([Type.Integer(), Type.Null()]),
  expires_at: Type.Union([Type.Integer(), Type.Null()], {
    description: "When the file's links and content stop working.",
  }),
  prompt: Type.Union([Type.String(), Type.Null()]),
  seconds: Type.String({ description: "Duration asked for (OpenAI style)." }),
  size: Type.String({ description: "Frame size, e.g. 1280x720." }),
  remixed_from_video_id: Type.Null(),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
  metadata: Type.Object({
    billing: Type.Union([Billing, Type.Null()], {
      description: "While running, the held price; once completed, the charge; null on failure.",
    }),
  }),
});
export type Video = Static<typeof Video>;

/** GET /v1/video/generations/{id}: the envelope older video clients read. */
export const VideoGeneration = Type.Object({
  code: Type.String({ description: "`success`." }),
  message: Type.String(),
  data: Type.Object({
    task_id: Type.String(),
    status: Type.String({ description: "queued, in_progress, completed or failed." }),
    progress: Type.Integer({ minimum: 0, maximum: 100 }),
    result_url: Type.Union([Type.String(), Type.Null()], {
      description: "A signed, expiring link to the file once completed.",
    }),
  }),
});
export type VideoGeneration = Static<typeof VideoGeneration>;
