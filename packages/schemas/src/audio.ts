import { type Static, Type } from "@sinclair/typebox";
import { Billing } from "./media.ts";

/** POST /v1/audio/generations (spec 4.5): the catalog decides the input per operation. */
export const AudioCallBody = Type.Object(
  {
    model: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "Public model family, e.g. sonora/speech or sonora/music.",
    }),
    prompt: Type.Optional(
      Type.String({ maxLength: 32_000, description: "The text; custom-mode music: the lyrics." }),
    ),
    operation: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "Explicit mode (extend, separate, wav).",
      }),
    ),
    input: Type.Optional(
      Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), {
        description:
          "Model-specific settings (voice, speed, format; model, customMode, style, title, audioId); schemas in GET /v1/media/models.",
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
export type AudioCallBody = Static<typeof AudioCallBody>;

const Status = Type.Union([
  Type.Literal("queued"),
  Type.Literal("processing"),
  Type.Literal("completed"),
  Type.Literal("failed"),
]);

/** Spec 2.14: an audio task, as created and as read. */
export const AudioTask = Type.Object({
  object: Type.Literal("audio.generation"),
  id: Type.String(),
  task_id: Type.String(),
  model: Type.String(),
  operation: Type.String(),
  status: Status,
  progress: Type.Integer({ minimum: 0, maximum: 100, description: "Percent done." }),
  created_at: Type.Integer({ description: "Unix seconds." }),
  finished_at: Type.Union([Type.Integer(), Type.Null()]),
  tracks: Type.Array(
    Type.Object({
      id: Type.String({ description: "`<task_id>:<index>`: the audioId of later operations." }),
      url: Type.String({ description: "Signed, expiring link to the file." }),
      duration: Type.Number({ description: "Seconds." }),
      content_type: Type.String(),
      name: Type.Optional(Type.String()),
    }),
  ),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
  billing: Type.Union([Billing, Type.Null()], {
    description:
      "Reserve → charge → refund: while running, the reserve charged at submission; once finished, the final price (the unused reserve was refunded).",
  }),
});
export type AudioTask = Static<typeof AudioTask>;
