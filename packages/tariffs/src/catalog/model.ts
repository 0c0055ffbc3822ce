import type { TObject } from "@sinclair/typebox";
import type { TypeCheck } from "@sinclair/typebox/compiler";
import type { FieldSpec, ModelSpec, OperationSpec } from "./spec.ts";

export type Scalar = string | number | boolean;

/** A rate with its price already in quota, and the input values it applies to. */
export interface Rate {
  when: Record<string, Scalar>;
  quota: bigint;
}

export interface Surcharge {
  unit: string;
  quota: bigint;
  count: string[];
}

/** One operation (mode) of a model, compiled once at load. */
export interface Operation {
  name: string;
  spec: OperationSpec;
  fields: Record<string, FieldSpec>;
  schema: TObject;
  check: TypeCheck<TObject>;
  rates: Rate[];
  surcharges: Surcharge[];
}

/**
 * A callable model ID. A family with variants is callable too: it resolves to its first
 * variant, so `defaultVariant` names the model that actually runs and is billed.
 */
export interface CatalogModel {
  id: string;
  spec: ModelSpec;
  kind: ModelSpec["kind"];
  available: boolean;
  endpointTypes: string[];
  operations: Map<string, Operation>;
  /** Set on a variant: its family's ID and its own label. */
  family?: { id: string; label: string };
  /** Set on a family: its variants, the first being the default. */
  variants?: { id: string; label: string }[];
  upstreamModel: string;
}

/** Operation names that edit a source image (spec 2.2); the choice among them is the model's. */
export const EDIT_OPERATIONS = ["image-to-image", "image-edit", "edit"] as const;

export const ENDPOINT_TYPES: Record<ModelSpec["kind"], string[]> = {
  image: ["image-generation"],
  audio: ["audio-generation"],
  video: ["video-generation"],
  text: ["openai", "msgcompat", "generate-content"],
};
