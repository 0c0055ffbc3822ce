import { type TSchema, Type } from "@sinclair/typebox";
import type { FieldSpec } from "./spec.ts";

/** Longest URL accepted in a file field; longer ones are refused, not truncated. */
export const MAX_URL_LENGTH = 2048;
const MAX_TEXT_LENGTH = 10_000;

type Scalar = string | number | boolean;

function annotations(field: FieldSpec) {
  return {
    ...(field.description ? { description: field.description } : {}),
    ...(field.default !== undefined ? { default: field.default } : {}),
  };
}

function literals(values: Scalar[], extra: object): TSchema {
  const options = values.map((value) => Type.Literal(value));
  return options.length === 1 ? Type.Literal(values[0]!, extra) : Type.Union(options, extra);
}

/** The TypeBox schema of one input field: what validates it and what the catalog publishes. */
export function fieldSchema(field: FieldSpec): TSchema {
  const extra = annotations(field);
  switch (field.type) {
    case "string":
      return field.enum
        ? literals(field.enum, extra)
        : Type.String({ maxLength: field.max_length ?? MAX_TEXT_LENGTH, ...extra });
    case "integer":
      return field.enum
        ? literals(field.enum, extra)
        : Type.Integer({ minimum: field.minimum, maximum: field.maximum, ...extra });
    case "number":
      return Type.Number({ minimum: field.minimum, maximum: field.maximum, ...extra });
    case "boolean":
      return Type.Boolean(extra);
    case "url":
      return Type.String({ maxLength: MAX_URL_LENGTH, "x-file": "https-url", ...extra });
    case "url_list":
      return Type.Array(Type.String({ maxLength: MAX_URL_LENGTH, "x-file": "https-url" }), {
        minItems: field.min_items,
        maxItems: field.max_items ?? 16,
        ...extra,
      });
  }
}

/** An input object schema: declared fields only, so an unknown field is an error. */
export function inputSchema(fields: Record<string, FieldSpec>) {
  const properties: Record<string, TSchema> = {};
  for (const [name, field] of Object.entries(fields)) {
    const schema = fieldSchema(field);
    properties[name] = field.required ? schema : Type.Optional(schema);
  }
  return Type.Object(properties, { additionalProperties: false });
}

const quote = (value: Scalar) => (typeof value === "string" ? `"${value}"` : String(value));

/** What a field accepts, in words, for error messages that let a client fix the call. */
export function describeField(field: FieldSpec): string {
  if (field.enum) return `one of ${field.enum.map(quote).join(", ")}`;
  const range = (unit: string) => {
    const { minimum: min, maximum: max } = field;
    if (min !== undefined && max !== undefined) return `${unit} from ${min} to ${max}`;
    if (min !== undefined) return `${unit} of at least ${min}`;
    if (max !== undefined) return `${unit} of at most ${max}`;
    return unit;
  };
  switch (field.type) {
    case "string":
      return `a string of at most ${field.max_length ?? MAX_TEXT_LENGTH} characters`;
    case "integer":
      return range("an integer");
    case "number":
      return range("a number");
    case "boolean":
      return "true or false";
    case "url":
      return "a public HTTPS URL";
    case "url_list": {
      const min = field.min_items ?? 0;
      const max = field.max_items ?? 16;
      return `an array of ${min} to ${max} public HTTPS URLs`;
    }
  }
}

/** True when a value is one a field may hold (used for defaults and rule values at load). */
export function valueFits(field: FieldSpec, value: unknown): boolean {
  if (field.enum) return field.enum.some((option) => option === value);
  switch (field.type) {
    case "string":
    case "url":
      return typeof value === "string";
    case "integer":
    case "number":
      return (
        typeof value === "number" &&
        (field.type === "number" || Number.isInteger(value)) &&
        (field.minimum === undefined || value >= field.minimum) &&
        (field.maximum === undefined || value <= field.maximum)
      );
    case "boolean":
      return typeof value === "boolean";
    case "url_list":
      return false;
  }
}

/** Every value a field can take, when that is a short finite list (for tariff coverage). */
export function finiteValues(field: FieldSpec): Scalar[] | null {
  if (field.enum) return field.enum;
  if (field.type === "boolean") return [false, true];
  return null;
}
