import { type Static, Type } from "@sinclair/typebox";

/** Spec 2.8: one entry of GET /v1/models and its OpenAI-format aliases. */
export const ModelEntry = Type.Object({
  id: Type.String({ description: "ID for the `model` field." }),
  object: Type.Literal("model"),
  created: Type.Integer({ description: "Unix seconds." }),
  owned_by: Type.String(),
  supported_endpoint_types: Type.Array(Type.String()),
  reasoning_supported: Type.Boolean(),
  supported_reasoning_efforts: Type.Optional(
    Type.Array(Type.String(), { description: "Present only when the modes are known." }),
  ),
  is_available: Type.Boolean({ description: "Catalog availability, not a success guarantee." }),
  token_multiplier: Type.Number({ description: "Catalog metadata, not a monetary rate." }),
});
export type ModelEntry = Static<typeof ModelEntry>;

export const ModelList = Type.Object({
  object: Type.Literal("list"),
  data: Type.Array(ModelEntry),
});

/** GET /v1/models/{model} for an unknown ID: HTTP 200 with an error object (spec 4.8). */
export const ModelLookupError = Type.Object({
  error: Type.Object({ message: Type.String(), type: Type.String(), code: Type.String() }),
});

/** Message-API-style model (spec 4.8, /msgcompat/v1/models). */
export const MsgModel = Type.Object({
  type: Type.Literal("model"),
  id: Type.String(),
  display_name: Type.String(),
  created_at: Type.String({ description: "RFC 3339 time." }),
});
export const MsgModelList = Type.Object({
  data: Type.Array(MsgModel),
  has_more: Type.Boolean(),
  first_id: Type.Optional(Type.String({ description: "Absent on an empty list." })),
  last_id: Type.Optional(Type.String({ description: "Absent on an empty list." })),
});

/** Generate-content-style model (spec 4.8, /v1beta/models). */
export const ContentModel = Type.Object({
  name: Type.String({ description: "models/<id>" }),
  baseModelId: Type.String(),
  version: Type.String(),
  displayName: Type.String(),
  description: Type.String(),
  inputTokenLimit: Type.Integer(),
  outputTokenLimit: Type.Integer(),
  supportedGenerationMethods: Type.Array(Type.String()),
});
export const ContentModelList = Type.Object({
  models: Type.Array(ContentModel),
  nextPageToken: Type.Optional(Type.String({ description: "Absent on the last page." })),
});

const Usd = Type.Number();
/** Spec 2.9: one family of GET /v1/model-options with its callable options. */
export const ModelOption = Type.Object({
  model_id: Type.String(),
  display_name: Type.String(),
  options: Type.Array(
    Type.Object({
      id: Type.String({ description: "Callable ID; pass it in `model` to choose this variant." }),
      label: Type.String(),
      pricing_mode: Type.String({ description: "tokens, per_image, per_second or per_operation." }),
      input_price_per_m: Type.Optional(Usd),
      output_price_per_m: Type.Optional(Usd),
      cache_read_price_per_m: Type.Optional(Usd),
      cache_write_price_per_m: Type.Optional(Usd),
      image_output_price: Type.Optional(Usd),
      video_price_per_second: Type.Optional(Usd),
      video_sound_price_per_second: Type.Optional(Usd),
      media_rates: Type.Optional(
        Type.Array(
          Type.Object({
            operation: Type.String(),
            component: Type.String(),
            parameters: Type.Record(
              Type.String(),
              Type.Union([Type.String(), Type.Number(), Type.Boolean()]),
            ),
            unit: Type.String(),
            usd: Usd,
            included: Type.Optional(Type.Integer()),
          }),
        ),
      ),
    }),
  ),
});
export const ModelOptionList = Type.Object({
  object: Type.Literal("list"),
  data: Type.Array(ModelOption),
});
