import type { FieldSpec, ModelSpec, OperationSpec } from "./spec.ts";

/**
 * The catalog that ships with the gateway, in the operator file format. Prices are the
 * spec's where it gives them (section 2.5) and plausible list prices elsewhere; the
 * README's "Model catalog" section lists them. An operator file overrides or extends it.
 */

const CREATED = 1_761_955_200; // 2025-11-01
const VERSION = "2026-11-01";

const n = (max: number): FieldSpec => ({
  type: "integer",
  minimum: 1,
  maximum: max,
  default: 1,
  description: "Number of images.",
});
const outputFormat: FieldSpec = { type: "string", enum: ["png", "jpeg", "webp"], default: "png" };
const seed: FieldSpec = { type: "integer", minimum: 0, maximum: 2_147_483_647 };
const imageUrl = (description: string): FieldSpec => ({
  type: "url",
  required: true,
  description,
});

/** Flare and Sunburst share one schema and one tariff (spec 2.5): per image by resolution. */
const luminaInput: Record<string, FieldSpec> = {
  resolution: { type: "string", enum: ["1K", "2K", "4K"], default: "1K" },
  aspect_ratio: {
    type: "string",
    enum: ["1:1", "4:3", "3:4", "16:9", "9:16", "3:2", "2:3"],
    default: "1:1",
  },
  n: n(4),
  seed,
  output_format: outputFormat,
};
const luminaTariff: OperationSpec["tariff"] = {
  unit: "image",
  quantity: { field: "n" },
  rates: [
    { when: { resolution: "1K" }, usd: "0.045" },
    { when: { resolution: "2K" }, usd: "0.075" },
    { when: { resolution: "4K" }, usd: "0.12" },
  ],
};

const gptQualitySize: Record<string, FieldSpec> = {
  quality: { type: "string", enum: ["low", "medium", "high"], default: "medium" },
  size: { type: "string", enum: ["1024x1024", "1536x1024", "1024x1536"], default: "1024x1024" },
  n: n(4),
  background: { type: "string", enum: ["auto", "transparent", "opaque"], default: "auto" },
  output_format: outputFormat,
};
const gptRates = (
  [
    ["low", "0.011", "0.016"],
    ["medium", "0.042", "0.063"],
    ["high", "0.167", "0.25"],
  ] as const
).flatMap(([quality, square, wide]) => [
  { when: { quality, size: "1024x1024" }, usd: square },
  { when: { quality, size: "1536x1024" }, usd: wide },
  { when: { quality, size: "1024x1536" }, usd: wide },
]);
const gptCommon = { n: "n", size: "size", quality: "quality" } as const;

const videoInput: Record<string, FieldSpec> = {
  resolution: { type: "string", enum: ["480p", "720p", "1080p"], default: "720p" },
  duration: { type: "integer", enum: [5, 8, 10], default: 5, description: "Seconds." },
  sound: { type: "boolean", default: false, description: "Generate a soundtrack." },
  aspect_ratio: { type: "string", enum: ["16:9", "9:16", "1:1"], default: "16:9" },
  seed,
};
const videoTariff: OperationSpec["tariff"] = {
  unit: "second",
  quantity: { field: "duration" },
  rates: (
    [
      ["480p", "0.05", "0.075"],
      ["720p", "0.1", "0.15"],
      ["1080p", "0.2", "0.3"],
    ] as const
  ).flatMap(([resolution, silent, withSound]) => [
    { when: { resolution, sound: false }, usd: silent },
    { when: { resolution, sound: true }, usd: withSound },
  ]),
};
const videoRules: OperationSpec["rules"] = [
  { when: { resolution: "1080p" }, allowed: { duration: [5, 8] } },
];

const musicVersion: FieldSpec = {
  type: "string",
  enum: ["v4", "v4.5", "v5"],
  default: "v4.5",
  description: "Music model version (not the top-level model).",
};
const audioId: FieldSpec = {
  type: "string",
  required: true,
  max_length: 100,
  description: "<task_public_id>:<track_index> of your own completed music task.",
};
const perOperation = (usd: string): OperationSpec["tariff"] => ({
  unit: "operation",
  quantity: { fixed: 1 },
  rates: [{ usd }],
});

export const DEFAULT_CATALOG: { models: ModelSpec[] } = {
  models: [
    {
      id: "lumina-image",
      display_name: "Lumina Image",
      kind: "image",
      owned_by: "lumina",
      created: CREATED,
      description: "Image family with Flare (fast) and Sunburst (detailed) variants.",
      tariff_version: VERSION,
      variants: [
        { id: "lumina-image-flare", label: "Flare", upstream_model: "lumina-flare-1" },
        { id: "lumina-image-sunburst", label: "Sunburst", upstream_model: "lumina-sunburst-1" },
      ],
      operations: {
        "text-to-image": {
          description: "Create images from text.",
          default: true,
          input: luminaInput,
          common: { n: "n" },
          tariff: luminaTariff,
        },
        "image-to-image": {
          description: "Edit source images following the prompt; no mask.",
          input: {
            ...luminaInput,
            image_urls: {
              type: "url_list",
              required: true,
              min_items: 1,
              max_items: 4,
              description: "Source images, public HTTPS URLs.",
            },
          },
          image_field: "image_urls",
          common: { n: "n" },
          tariff: luminaTariff,
        },
      },
    },
    {
      id: "gpt-image-1",
      display_name: "GPT Image 1",
      kind: "image",
      owned_by: "openai",
      created: CREATED,
      description: "GPT-style image model: up to 16 reference images, priced by quality and size.",
      tariff_version: VERSION,
      operations: {
        generate: {
          description: "Create images from text.",
          default: true,
          input: gptQualitySize,
          common: gptCommon,
          tariff: { unit: "image", quantity: { field: "n" }, rates: gptRates },
        },
        "image-edit": {
          description: "Edit or combine reference images; an optional mask marks the area.",
          input: {
            ...gptQualitySize,
            image_urls: {
              type: "url_list",
              required: true,
              min_items: 1,
              max_items: 16,
              description: "Images to edit.",
            },
            input_urls: {
              type: "url_list",
              max_items: 15,
              description: "Further reference images; never the same as image_urls.",
            },
            mask_url: { type: "url", description: "PNG mask; transparent pixels are edited." },
          },
          image_field: "image_urls",
          mask_field: "mask_url",
          common: gptCommon,
          rules: [
            { max_total: 16, fields: ["image_urls", "input_urls"] },
            { distinct: ["image_urls", "input_urls"] },
          ],
          tariff: {
            unit: "image",
            quantity: { field: "n" },
            rates: gptRates,
            surcharges: [{ unit: "input_image", usd: "0.01", count: ["image_urls", "input_urls"] }],
          },
        },
      },
    },
    {
      id: "atlas-segment",
      display_name: "Atlas Segment",
      kind: "image",
      owned_by: "atlas",
      created: CREATED,
      description: "Segments an image into named masks.",
      tariff_version: VERSION,
      operations: {
        "segment-map": {
          description: "Masks with index and name; source by image_url or an earlier task_id.",
          prompt: "optional",
          input: {
            image_url: { type: "url", description: "Public HTTPS URL of the image." },
            task_id: {
              type: "string",
              max_length: 100,
              description: "An earlier successful image task of your account.",
            },
            max_masks: { type: "integer", minimum: 1, maximum: 32, default: 8 },
          },
          image_field: "image_url",
          rules: [{ exactly_one_of: ["image_url", "task_id"] }],
          tariff: perOperation("0.01"),
        },
      },
    },
    {
      id: "crisp-upscale",
      display_name: "Crisp Upscale",
      kind: "image",
      owned_by: "crisp",
      created: CREATED,
      description: "Upscales an image 2x or 4x; needs an explicit operation.",
      tariff_version: VERSION,
      operations: {
        upscale: {
          prompt: "none",
          input: {
            image_url: imageUrl("Image to upscale."),
            scale: { type: "integer", enum: [2, 4], default: 2 },
            output_format: outputFormat,
          },
          image_field: "image_url",
          tariff: {
            unit: "image",
            quantity: { fixed: 1 },
            rates: [
              { when: { scale: 2 }, usd: "0.01" },
              { when: { scale: 4 }, usd: "0.02" },
            ],
          },
        },
      },
    },
    {
      id: "patch-edit",
      display_name: "Patch Edit",
      kind: "image",
      owned_by: "patch",
      created: CREATED,
      description: "Region editing with a mask, and layer separation.",
      tariff_version: VERSION,
      operations: {
        "region-edit": {
          description: "Repaint the masked region following the prompt.",
          input: {
            image_url: imageUrl("Image to edit."),
            mask_url: { type: "url", required: true, description: "White marks the region." },
            n: n(4),
            output_format: outputFormat,
          },
          image_field: "image_url",
          mask_field: "mask_url",
          common: { n: "n" },
          tariff: { unit: "image", quantity: { field: "n" }, rates: [{ usd: "0.04" }] },
        },
        "layer-separation": {
          description: "Split an image into layers.",
          prompt: "none",
          input: {
            image_url: imageUrl("Image to split."),
            layers: { type: "integer", minimum: 2, maximum: 8, default: 4 },
          },
          image_field: "image_url",
          tariff: perOperation("0.03"),
        },
      },
    },
    {
      id: "sonora/speech",
      display_name: "Sonora Speech",
      kind: "audio",
      owned_by: "sonora",
      created: CREATED,
      description: "Speech from text, charged per second of result.",
      tariff_version: VERSION,
      operations: {
        "text-to-speech": {
          default: true,
          input: {
            voice: {
              type: "string",
              enum: ["standard", "warm", "bright", "narrator"],
              default: "standard",
            },
            speed: { type: "number", minimum: 0.5, maximum: 2, default: 1 },
            format: { type: "string", enum: ["mp3", "wav"], default: "mp3" },
          },
          tariff: {
            unit: "second",
            quantity: { measured: true, reserve: 600 },
            rates: [{ usd: "0.0011" }],
          },
        },
      },
    },
    {
      id: "sonora/music",
      display_name: "Sonora Music",
      kind: "audio",
      owned_by: "sonora",
      created: CREATED,
      description: "Songs (two tracks per generation), continuation, separation, WAV conversion.",
      tariff_version: VERSION,
      operations: {
        generate: {
          default: true,
          description: "A song from a description, or from lyrics in custom mode.",
          input: {
            model: musicVersion,
            customMode: { type: "boolean", default: false },
            instrumental: { type: "boolean", default: false },
            style: { type: "string", max_length: 200 },
            title: { type: "string", max_length: 80 },
          },
          rules: [{ when: { customMode: true }, require: ["style", "title"] }],
          tariff: perOperation("0.06"),
        },
        extend: {
          description: "Continue one of your tracks.",
          prompt: "optional",
          input: {
            audioId,
            model: musicVersion,
            continueAt: { type: "number", minimum: 0, maximum: 480, description: "Seconds." },
          },
          tariff: perOperation("0.06"),
        },
        separate: {
          description: "Separate vocals and instruments of one of your tracks.",
          prompt: "none",
          input: {
            audioId,
            type: { type: "string", enum: ["vocals", "stems"], default: "vocals" },
          },
          tariff: {
            unit: "operation",
            quantity: { fixed: 1 },
            rates: [
              { when: { type: "vocals" }, usd: "0.03" },
              { when: { type: "stems" }, usd: "0.05" },
            ],
          },
        },
        wav: {
          description: "Convert one of your tracks to WAV.",
          prompt: "none",
          input: { audioId },
          tariff: perOperation("0.004"),
        },
      },
    },
    {
      id: "motion-video",
      display_name: "Motion Video",
      kind: "video",
      owned_by: "motion",
      created: CREATED,
      description: "Video per second by resolution, with or without sound.",
      tariff_version: VERSION,
      operations: {
        "text-to-video": {
          default: true,
          input: videoInput,
          rules: videoRules,
          tariff: videoTariff,
        },
        "image-to-video": {
          input: { ...videoInput, image_url: imageUrl("First frame.") },
          image_field: "image_url",
          rules: videoRules,
          tariff: videoTariff,
        },
      },
    },
    {
      id: "lumen-chat",
      display_name: "Lumen Chat",
      kind: "text",
      owned_by: "lumen",
      created: CREATED,
      tariff_version: VERSION,
      context_tokens: 200_000,
      output_tokens: 16_384,
      tokenizer: "anthropic/claude-sonnet-4.5",
      text_prices: {
        input_per_m: "1.25",
        output_per_m: "10",
        cache_read_per_m: "0.125",
        cache_write_per_m: "1.5625",
      },
    },
    {
      id: "lumen-chat-mini",
      display_name: "Lumen Chat Mini",
      kind: "text",
      owned_by: "lumen",
      created: CREATED,
      tariff_version: VERSION,
      context_tokens: 128_000,
      output_tokens: 16_384,
      tokenizer: "openai/gpt-4o-mini",
      text_prices: { input_per_m: "0.15", output_per_m: "0.6", cache_read_per_m: "0.075" },
    },
    {
      id: "lumen-reasoner",
      display_name: "Lumen Reasoner",
      kind: "text",
      owned_by: "lumen",
      created: CREATED,
      tariff_version: VERSION,
      context_tokens: 200_000,
      output_tokens: 65_536,
      tokenizer: "google/gemini-2.5-pro",
      reasoning_efforts: ["low", "medium", "high"],
      token_multiplier: 2,
      text_prices: { input_per_m: "2", output_per_m: "8", cache_read_per_m: "0.5" },
    },
  ],
};
