import { type Static, Type } from "@sinclair/typebox";

const Url = Type.String({ minLength: 1, maxLength: 2048, description: "Public HTTPS URL." });

/**
 * The JSON body of a media call (spec 4.1-4.3): generation, edit and quote share it.
 * Model-specific settings go in `input`, checked against the model's published schema.
 */
export const MediaCallBody = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 200, description: "Public model ID." }),
    prompt: Type.Optional(Type.String({ maxLength: 32_000 })),
    operation: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "Explicit mode; overrides the automatic choice.",
      }),
    ),
    input: Type.Optional(
      Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), {
        description:
          "Model-specific settings; the schema per operation is in GET /v1/media/models.",
      }),
    ),
    image: Type.Optional(
      Type.Union([Url, Type.Array(Url, { minItems: 1, maxItems: 16 })], {
        description: "Source image(s); moved into the chosen model's own field.",
      }),
    ),
    mask: Type.Optional(Url),
    n: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 16, description: "Images, OpenAI style." }),
    ),
    size: Type.Optional(Type.String({ maxLength: 32 })),
    quality: Type.Optional(Type.String({ maxLength: 32 })),
    response_format: Type.Optional(Type.Union([Type.Literal("url"), Type.Literal("b64_json")])),
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
export type MediaCallBody = Static<typeof MediaCallBody>;

const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

/** Spec 2.4: the cost breakdown of quotes and results. USD is derived from quota. */
export const Billing = Type.Object({
  version: Type.String({ description: "Tariff version the price was computed by." }),
  currency: Type.Literal("USD"),
  model: Type.String({
    description: "The model that runs (a family ID runs its default variant).",
  }),
  operation: Type.String(),
  usd: Type.Number({ description: "Price of the known volume; not final while pending." }),
  quota: Type.Integer({ description: "The same in quota units (1 USD = 500,000), not tokens." }),
  pending: Type.Boolean({ description: "True when the final price needs a measured result." }),
  lines: Type.Array(
    Type.Object({
      unit: Type.String(),
      quantity: Type.Integer(),
      unit_usd: Type.Number(),
      usd: Type.Number(),
      parameters: Type.Record(Type.String(), Scalar),
      pending: Type.Boolean(),
    }),
  ),
});
export type Billing = Static<typeof Billing>;

export const Quote = Type.Object({
  billing: Billing,
  input: Type.Record(Type.String(), Type.Unknown(), {
    description: "The normalized input, defaults included.",
  }),
});
export type Quote = Static<typeof Quote>;

/** Spec 2.1: one callable model of GET /v1/media/models. */
export const MediaModel = Type.Object({
  id: Type.String(),
  object: Type.Literal("media_model"),
  kind: Type.String(),
  display_name: Type.String(),
  description: Type.Optional(Type.String()),
  family: Type.Optional(Type.String({ description: "Set on a variant: its family's ID." })),
  variants: Type.Optional(
    Type.Array(Type.Object({ id: Type.String(), label: Type.String() }), {
      description: "Set on a family: its callable variants; the first runs for the family ID.",
    }),
  ),
  is_available: Type.Boolean(),
  operations: Type.Array(Type.String()),
  default_operation: Type.Union([Type.String(), Type.Null()]),
  input_schemas: Type.Record(Type.String(), Type.Unknown(), {
    description:
      "Per operation: JSON Schema of `input` (allowed values, required, limits, defaults).",
  }),
  operation_details: Type.Record(
    Type.String(),
    Type.Object({
      prompt: Type.String(),
      image_field: Type.Union([Type.String(), Type.Null()]),
      mask_field: Type.Union([Type.String(), Type.Null()]),
      rules: Type.Array(Type.Unknown()),
    }),
  ),
  tariff: Type.Object({
    version: Type.String(),
    currency: Type.Literal("USD"),
    rates: Type.Array(
      Type.Object({
        operation: Type.String(),
        unit: Type.String(),
        usd: Type.Number(),
        parameters: Type.Record(Type.String(), Scalar),
        component: Type.String({ description: "rate, or a surcharge unit." }),
      }),
    ),
  }),
});
export type MediaModel = Static<typeof MediaModel>;

export const MediaModelList = Type.Object({
  object: Type.Literal("list"),
  data: Type.Array(MediaModel),
});
