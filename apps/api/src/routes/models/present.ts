import type { MediaModel, ModelEntry } from "@gw/schemas";
import { type CatalogModel, type Operation, quotaToUsd, type Scalar } from "@gw/tariffs";
import { Value } from "@sinclair/typebox/value";

/** Spec 2.8: the OpenAI-format entry of every model list alias. */
export function modelEntry(model: CatalogModel): ModelEntry {
  const efforts = model.spec.reasoning_efforts;
  return {
    id: model.id,
    object: "model",
    created: model.spec.created,
    owned_by: model.spec.owned_by,
    supported_endpoint_types: model.endpointTypes,
    reasoning_supported: efforts !== undefined,
    ...(efforts && efforts.length > 0 ? { supported_reasoning_efforts: efforts } : {}),
    is_available: model.available,
    token_multiplier: model.spec.token_multiplier ?? 1,
  };
}

/** RFC 3339 without milliseconds, as message-API clients expect. */
export function rfc3339(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function msgModel(model: CatalogModel) {
  return {
    type: "model" as const,
    id: model.id,
    display_name: model.family
      ? `${model.spec.display_name} ${model.family.label}`
      : model.spec.display_name,
    created_at: rfc3339(model.spec.created),
  };
}

export function contentModel(model: CatalogModel) {
  return {
    name: `models/${model.id}`,
    baseModelId: model.id,
    version: model.spec.tariff_version,
    displayName: model.spec.display_name,
    description: model.spec.description ?? "",
    inputTokenLimit: model.spec.context_tokens ?? 0,
    outputTokenLimit: model.spec.output_tokens ?? 0,
    supportedGenerationMethods: ["generateContent", "streamGenerateContent", "countTokens"],
  };
}

export interface RateRow {
  operation: string;
  component: string;
  unit: string;
  usd: number;
  parameters: Record<string, Scalar>;
}

/** Every rate and surcharge of a model, as published in the catalog and model options. */
export function rateRows(model: CatalogModel): RateRow[] {
  return [...model.operations.values()].flatMap((operation) => [
    ...operation.rates.map((rate) => ({
      operation: operation.name,
      component: "rate",
      unit: operation.spec.tariff.unit,
      usd: quotaToUsd(rate.quota),
      parameters: rate.when,
    })),
    ...operation.surcharges.map((surcharge) => ({
      operation: operation.name,
      component: "surcharge",
      unit: surcharge.unit,
      usd: quotaToUsd(surcharge.quota),
      parameters: { fields: surcharge.count.join(",") },
    })),
  ]);
}

export function defaultOperation(model: CatalogModel): Operation | undefined {
  return [...model.operations.values()].find((operation) => operation.spec.default);
}

/** Catalog entries never change after load, so each is presented once. */
const presented = new WeakMap<CatalogModel, MediaModel>();

/** Spec 2.1: a media catalog entry with its operations, input schemas and tariff. */
export function mediaModel(model: CatalogModel): MediaModel {
  let entry = presented.get(model);
  if (!entry) {
    entry = presentMediaModel(model);
    presented.set(model, entry);
  }
  return entry;
}

function presentMediaModel(model: CatalogModel): MediaModel {
  const operations = [...model.operations.values()];
  return {
    id: model.id,
    object: "media_model",
    kind: model.kind,
    display_name: model.spec.display_name,
    ...(model.spec.description ? { description: model.spec.description } : {}),
    ...(model.family ? { family: model.family.id } : {}),
    ...(model.variants ? { variants: model.variants } : {}),
    is_available: model.available,
    operations: operations.map((operation) => operation.name),
    default_operation: defaultOperation(model)?.name ?? null,
    input_schemas: Object.fromEntries(
      // Plain JSON Schema: TypeBox's symbols dropped.
      operations.map((operation) => [operation.name, JSON.parse(JSON.stringify(operation.schema))]),
    ),
    operation_details: Object.fromEntries(
      operations.map((operation) => [
        operation.name,
        {
          prompt: operation.spec.prompt ?? "required",
          image_field: operation.spec.image_field ?? null,
          mask_field: operation.spec.mask_field ?? null,
          rules: operation.spec.rules ?? [],
        },
      ]),
    ),
    tariff: { version: model.spec.tariff_version, currency: "USD", rates: rateRows(model) },
  };
}

/** The rate that applies to an operation's default input (what a bare call costs per unit). */
export function defaultRate(operation: Operation, overrides: Record<string, Scalar> = {}) {
  const input = {
    ...(Value.Default(operation.schema, {}) as Record<string, unknown>),
    ...overrides,
  };
  const rate = operation.rates.find((candidate) =>
    Object.entries(candidate.when).every(([name, value]) => input[name] === value),
  );
  return rate ? quotaToUsd(rate.quota) : undefined;
}
