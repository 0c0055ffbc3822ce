import type { Random } from "@gw/random";
import type { Schema } from "./openapi.ts";

/**
 * Supplies a plausible value for a named field, when the name says more than its schema
 * (a model id, a URL, a task id); `undefined` leaves the field to the schema.
 */
export type Hint = (name: string, schema: Schema, random: Random) => unknown;

/** Limits on what a plausible value may grow to: cases stay small unless a mutation makes them big. */
const MAX_ITEMS = 3;
const MAX_DEPTH = 8;

/** The types a schema admits, `null` last so a plausible value is rarely null. */
export function typesOf(schema: Schema): string[] {
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  return [...types.filter((type) => type !== "null"), ...types.filter((type) => type === "null")];
}

/** A branch of `anyOf`/`oneOf`, preferring ones that are not just `null`. */
function branch(schema: Schema, random: Random): Schema | undefined {
  const options = schema.anyOf ?? schema.oneOf;
  if (!options?.length) return undefined;
  const useful = options.filter((option) => option.type !== "null");
  return random.pick(useful.length ? useful : options);
}

function plausibleString(schema: Schema, random: Random): string {
  if (schema.pattern === "^[0-9]{1,18}$") return String(random.int(1, 9));
  if (schema.pattern === "^[0-9]{1,3}$") return String(random.int(1, 100));
  if (schema.pattern === "^[0-9]{2,5}x[0-9]{2,5}$") return random.pick(["1280x720", "854x480"]);
  const min = schema.minLength ?? 1;
  const max = Math.max(min, Math.min(schema.maxLength ?? 24, 24));
  return random.string(random.int(min, max), "abcdefghij klmnop");
}

function plausibleNumber(schema: Schema, random: Random, integer: boolean): number {
  const low = schema.minimum ?? (schema.exclusiveMinimum ?? -1) + 1;
  const high = Math.min(schema.maximum ?? low + 10, low + 100);
  if (integer) return random.int(Math.ceil(low), Math.floor(Math.max(low, high)));
  const value = low + random.next() * (high - low);
  return Math.round(value * 100) / 100 || (schema.exclusiveMinimum === 0 ? 0.01 : 0);
}

function plausibleObject(schema: Schema, random: Random, hint: Hint, depth: number) {
  const out: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (!required.has(name) && !random.chance(0.4)) continue;
    const hinted = hint(name, property, random);
    out[name] = hinted !== undefined ? hinted : plausible(property, random, hint, depth + 1);
  }
  return out;
}

/** A value the schema admits, shaped like what a real client would send. */
export function plausible(schema: Schema, random: Random, hint: Hint, depth = 0): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return random.pick(schema.enum);
  const chosen = branch(schema, random);
  if (chosen) return plausible(chosen, random, hint, depth);
  if (depth > MAX_DEPTH) return null;
  const type = typesOf(schema)[0] ?? (schema.properties ? "object" : "string");
  switch (type) {
    case "string":
      return plausibleString(schema, random);
    case "integer":
      return plausibleNumber(schema, random, true);
    case "number":
      return plausibleNumber(schema, random, false);
    case "boolean":
      return random.chance(0.5);
    case "null":
      return null;
    case "array": {
      const min = schema.minItems ?? 0;
      const count = random.int(
        min,
        Math.max(min, Math.min(schema.maxItems ?? MAX_ITEMS, MAX_ITEMS)),
      );
      return Array.from({ length: count }, () =>
        plausible(schema.items ?? {}, random, hint, depth + 1),
      );
    }
    default:
      return plausibleObject(schema, random, hint, depth);
  }
}

/** The schema of the value at `path` inside a value of `schema`, as far as it can tell. */
export function schemaAt(schema: Schema | undefined, path: (string | number)[]): Schema {
  let at: Schema | undefined = schema;
  for (const step of path) {
    if (!at) return {};
    const options = at.anyOf ?? at.oneOf;
    if (options) at = options.find((option) => option.properties || option.items) ?? options[0];
    if (!at) return {};
    if (typeof step === "number") at = at.items;
    else
      at =
        at.properties?.[step] ??
        (typeof at.additionalProperties === "object" ? at.additionalProperties : undefined);
  }
  return at ?? {};
}
