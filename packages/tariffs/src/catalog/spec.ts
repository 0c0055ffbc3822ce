import { type Static, Type } from "@sinclair/typebox";

/**
 * The catalog file format: what an operator writes to add or change models, tariffs and
 * input schemas without touching code. The built-in default catalog is written in the
 * same format. Every list and number here is bounded so a bad file fails at start.
 */

const strict = { additionalProperties: false } as const;
const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);
const FieldName = Type.String({ pattern: "^[A-Za-z][A-Za-z0-9_]{0,63}$" });
/** USD as a decimal string ("0.045"), so a rate is never a float before it is quota. */
const UsdText = Type.String({ pattern: "^[0-9]{1,9}(\\.[0-9]{1,12})?$" });
const Conditions = Type.Record(FieldName, Scalar, {
  description: "Input values this applies to; every listed field must be equal.",
});

export const FieldSpec = Type.Object(
  {
    type: Type.Union([
      Type.Literal("string"),
      Type.Literal("integer"),
      Type.Literal("number"),
      Type.Literal("boolean"),
      Type.Literal("url"),
      Type.Literal("url_list"),
    ]),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    required: Type.Optional(Type.Boolean()),
    default: Type.Optional(Scalar),
    enum: Type.Optional(Type.Array(Scalar, { minItems: 1, maxItems: 64 })),
    minimum: Type.Optional(Type.Number()),
    maximum: Type.Optional(Type.Number()),
    max_length: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    min_items: Type.Optional(Type.Integer({ minimum: 0, maximum: 64 })),
    max_items: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
  },
  strict,
);
export type FieldSpec = Static<typeof FieldSpec>;

export const RuleSpec = Type.Union([
  Type.Object(
    { exactly_one_of: Type.Array(FieldName, { minItems: 2, maxItems: 8 }) },
    { ...strict, description: "Exactly one of these fields must be given." },
  ),
  Type.Object(
    { when: Conditions, require: Type.Array(FieldName, { minItems: 1, maxItems: 16 }) },
    { ...strict, description: "When the conditions hold, these fields are required." },
  ),
  Type.Object(
    {
      when: Conditions,
      allowed: Type.Record(FieldName, Type.Array(Scalar, { minItems: 1, maxItems: 64 })),
    },
    { ...strict, description: "When the conditions hold, these fields take only these values." },
  ),
  Type.Object(
    {
      max_total: Type.Integer({ minimum: 1, maximum: 64 }),
      fields: Type.Array(FieldName, { minItems: 1, maxItems: 8 }),
    },
    { ...strict, description: "At most this many files across these fields together." },
  ),
  Type.Object(
    { distinct: Type.Array(FieldName, { minItems: 2, maxItems: 8 }) },
    { ...strict, description: "No URL may appear in more than one of these fields." },
  ),
]);
export type RuleSpec = Static<typeof RuleSpec>;

export const TariffSpec = Type.Object(
  {
    unit: Type.String({
      pattern: "^[a-z][a-z0-9_]{0,31}$",
      description: "image, second, operation, 1k_chars, ...",
    }),
    quantity: Type.Union([
      Type.Object({ field: FieldName }, strict),
      Type.Object({ fixed: Type.Integer({ minimum: 1, maximum: 1000 }) }, strict),
      Type.Object(
        {
          measured: Type.Literal(true),
          reserve: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
        },
        strict,
      ),
    ]),
    rates: Type.Array(Type.Object({ when: Type.Optional(Conditions), usd: UsdText }, strict), {
      minItems: 1,
      maxItems: 256,
      description: "The first rate whose conditions hold applies.",
    }),
    surcharges: Type.Optional(
      Type.Array(
        Type.Object(
          {
            unit: Type.String({ pattern: "^[a-z][a-z0-9_]{0,31}$" }),
            usd: UsdText,
            count: Type.Array(FieldName, { minItems: 1, maxItems: 8 }),
          },
          strict,
        ),
        { maxItems: 8 },
      ),
    ),
  },
  strict,
);
export type TariffSpec = Static<typeof TariffSpec>;

export const OperationSpec = Type.Object(
  {
    description: Type.Optional(Type.String({ maxLength: 500 })),
    default: Type.Optional(
      Type.Boolean({ description: "The default generate mode, chosen without an image." }),
    ),
    prompt: Type.Optional(
      Type.Union([Type.Literal("required"), Type.Literal("optional"), Type.Literal("none")]),
    ),
    input: Type.Record(FieldName, FieldSpec),
    image_field: Type.Optional(FieldName),
    mask_field: Type.Optional(FieldName),
    common: Type.Optional(
      Type.Object(
        {
          n: Type.Optional(FieldName),
          size: Type.Optional(FieldName),
          quality: Type.Optional(FieldName),
        },
        {
          ...strict,
          description: "Top-level OpenAI-style fields and the input field each one sets.",
        },
      ),
    ),
    rules: Type.Optional(Type.Array(RuleSpec, { maxItems: 32 })),
    tariff: TariffSpec,
  },
  strict,
);
export type OperationSpec = Static<typeof OperationSpec>;

const ModelId = Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$" });

export const TextPrices = Type.Object(
  {
    input_per_m: UsdText,
    output_per_m: UsdText,
    cache_read_per_m: Type.Optional(UsdText),
    cache_write_per_m: Type.Optional(UsdText),
  },
  strict,
);
export type TextPrices = Static<typeof TextPrices>;

export const ModelSpec = Type.Object(
  {
    id: ModelId,
    display_name: Type.String({ minLength: 1, maxLength: 200 }),
    kind: Type.Union([
      Type.Literal("image"),
      Type.Literal("audio"),
      Type.Literal("video"),
      Type.Literal("text"),
    ]),
    owned_by: Type.String({ minLength: 1, maxLength: 100 }),
    created: Type.Integer({ minimum: 0, description: "Unix seconds." }),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    available: Type.Optional(Type.Boolean()),
    endpoint_types: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 16 })),
    tariff_version: Type.String({ minLength: 1, maxLength: 64 }),
    token_multiplier: Type.Optional(Type.Number({ minimum: 0, maximum: 1000 })),
    reasoning_efforts: Type.Optional(
      Type.Array(Type.String({ maxLength: 32 }), {
        maxItems: 8,
        description: "Reasoning modes, when known; an empty list means reasoning without modes.",
      }),
    ),
    context_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    tokenizer: Type.Optional(
      Type.String({
        maxLength: 100,
        description:
          "How local token counts are made for a text model: an ai-tokenizer model profile (its encoding and message overheads), e.g. anthropic/claude-sonnet-4.5 (claude encoding) or openai/gpt-4o-mini (o200k_base).",
      }),
    ),
    output_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    text_prices: Type.Optional(TextPrices),
    operations: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), OperationSpec)),
    variants: Type.Optional(
      Type.Array(
        Type.Object(
          {
            id: ModelId,
            label: Type.String({ minLength: 1, maxLength: 100 }),
            upstream_model: Type.Optional(Type.String({ maxLength: 200 })),
          },
          strict,
        ),
        { minItems: 1, maxItems: 16, description: "Callable variants; the first is the default." },
      ),
    ),
    upstream: Type.Optional(
      Type.Object(
        { provider: Type.String({ maxLength: 64 }), model: Type.String({ maxLength: 200 }) },
        strict,
      ),
    ),
  },
  strict,
);
export type ModelSpec = Static<typeof ModelSpec>;

export const CatalogFile = Type.Object(
  {
    replace_defaults: Type.Optional(
      Type.Boolean({ description: "Start from an empty catalog instead of the built-in one." }),
    ),
    remove: Type.Optional(Type.Array(ModelId, { maxItems: 1000 })),
    models: Type.Optional(Type.Array(ModelSpec, { maxItems: 1000 })),
  },
  strict,
);
export type CatalogFile = Static<typeof CatalogFile>;
