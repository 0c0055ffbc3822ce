import type { Random } from "@gw/random";
import type { Draft } from "./draft.ts";
import { getAt, type JsonPath, label, type Mutation, pathsOf, setAt, shortly } from "./mutation.ts";
import type { Schema } from "./openapi.ts";
import { EDGE_NUMBERS, HOSTILE_STRINGS, RAW_NUMBER_TOKENS, rawToken } from "./pools.ts";
import { schemaAt, typesOf } from "./values.ts";
import { areaOf, type World } from "./world.ts";

/** Mutations of a JSON body's fields: types, edges, unknown and missing fields. */

const jsonBody = (draft: Draft) => (draft.body?.kind === "json" ? draft.body : null);

function pickPath(draft: Draft, random: Random): JsonPath | null {
  const paths = pathsOf(jsonBody(draft)?.value);
  return paths.length ? random.pick(paths) : null;
}

/**
 * The input schema the catalog gives a media call's model and operation (the explicit
 * one, else the model's default), when the body names a model of the catalog.
 */
function inputSchemaOf(draft: Draft, world: World): Schema | null {
  const value = jsonBody(draft)?.value as { model?: unknown; operation?: unknown } | null;
  if (!["image", "audio", "video", "media"].includes(areaOf(draft.op))) return null;
  const model = world.catalog.media.find((entry) => entry.id === value?.model);
  if (!model) return null;
  const operation = typeof value?.operation === "string" ? value.operation : model.defaultOperation;
  return model.inputSchemas[operation] ?? null;
}

/**
 * The documented schema of a field, when the documents pin it down: the OpenAPI body
 * schema, and inside a media call's open `input` the catalog's schema for its model.
 */
function pinned(draft: Draft, world: World, path: JsonPath): Schema | null {
  const input = path[0] === "input" ? inputSchemaOf(draft, world) : null;
  const schema = input ? schemaAt(input, path.slice(1)) : schemaAt(draft.op.bodies.json, path);
  return typesOf(schema).length > 0 || schema.anyOf || schema.enum ? schema : null;
}

function otherType(value: unknown, random: Random): unknown {
  const options: unknown[] = [
    "text",
    "",
    42,
    -1,
    3.5,
    true,
    false,
    null,
    [],
    [1, "two", null],
    {},
    { nested: { deeper: [true] } },
  ];
  const kind = (v: unknown) => (Array.isArray(v) ? "array" : v === null ? "null" : typeof v);
  return random.pick(options.filter((option) => kind(option) !== kind(value)));
}

function admits(schema: Schema, value: unknown): boolean {
  const kind = Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
  const types = typesOf(schema);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return branches.some((option) => admits(option, value));
  if (schema.const !== undefined) return schema.const === value;
  if (types.length === 0) return true;
  if (kind === "number")
    return types.includes("number") || (types.includes("integer") && Number.isInteger(value));
  return types.includes(kind);
}

const wrongType: Mutation = {
  name: "field:wrong-type",
  weight: 10,
  applies: (draft) => jsonBody(draft) !== null,
  apply(draft, world, random) {
    const body = jsonBody(draft)!;
    const path = pickPath(draft, random);
    if (!path || random.chance(0.1)) {
      body.value = otherType(body.value, random);
      draft.mutation = `field:wrong-type:(root)=${shortly(body.value)}`;
      draft.mustRefuse = "the body is not an object";
      return;
    }
    const value = otherType(getAt(body.value, path), random);
    setAt(body.value, path, value);
    draft.mutation = `field:wrong-type:${label(path)}=${shortly(value)}`;
    const schema = pinned(draft, world, path);
    if (schema && !admits(schema, value)) draft.mustRefuse = `${label(path)} has the wrong type`;
  },
};

/** Values at and beyond a field's documented edges, plus the generic hostile ones. */
function edgeValues(schema: Schema | null, random: Random): { value: unknown; outside: boolean }[] {
  const out: { value: unknown; outside: boolean }[] = [];
  const types = schema ? typesOf(schema) : [];
  if (schema?.maxLength !== undefined) {
    out.push({ value: "x".repeat(schema.maxLength), outside: false });
    out.push({ value: "x".repeat(schema.maxLength + 1), outside: true });
  }
  if (schema?.minLength !== undefined && schema.minLength > 0)
    out.push({ value: "x".repeat(schema.minLength - 1), outside: true });
  if (schema?.maximum !== undefined) {
    out.push({ value: schema.maximum, outside: false });
    out.push({ value: schema.maximum + 1, outside: true });
  }
  if (schema?.minimum !== undefined) {
    out.push({ value: schema.minimum, outside: false });
    out.push({ value: schema.minimum - 1, outside: true });
  }
  if (schema?.maxItems !== undefined && schema.maxItems <= 2000)
    out.push({ value: Array.from({ length: schema.maxItems + 1 }, () => "x"), outside: true });
  if (types.includes("integer")) out.push({ value: 1.5, outside: true });
  out.push({ value: random.pick(HOSTILE_STRINGS), outside: false });
  out.push({ value: random.pick(EDGE_NUMBERS), outside: false });
  out.push({ value: rawToken(random.pick(RAW_NUMBER_TOKENS)), outside: false });
  out.push({ value: "y".repeat(random.pick([1_000, 100_000, 900_000])), outside: false });
  return out;
}

const boundary: Mutation = {
  name: "field:boundary",
  weight: 12,
  applies: (draft) => jsonBody(draft) !== null,
  apply(draft, world, random) {
    const body = jsonBody(draft)!;
    const path = pickPath(draft, random);
    if (!path) return wrongType.apply(draft, world, random);
    const schema = pinned(draft, world, path);
    const { value, outside } = random.pick(edgeValues(schema, random));
    setAt(body.value, path, value);
    draft.mutation = `field:boundary:${label(path)}=${shortly(value)}`;
    if (outside && schema) draft.mustRefuse = `${label(path)} is outside its documented range`;
  },
};

const UNKNOWN_NAMES = [
  "__proto__",
  "constructor",
  "prototype",
  "unknown_field",
  "Model",
  "MODEL",
  "",
];

const unknownField: Mutation = {
  name: "field:unknown",
  weight: 6,
  applies: (draft) => jsonBody(draft) !== null,
  apply(draft, world, random) {
    const body = jsonBody(draft)!;
    const objects = [[], ...pathsOf(body.value)].filter((path) => {
      const at = getAt(body.value, path);
      return at !== null && typeof at === "object" && !Array.isArray(at);
    });
    if (objects.length === 0) return wrongType.apply(draft, world, random);
    const path = random.pick(objects);
    const target = getAt(body.value, path) as Record<string, unknown>;
    if (random.chance(0.15)) {
      const count = random.pick([100, 5_000, 40_000]);
      for (let i = 0; i < count; i++) target[`k${i}`] = i;
      draft.mutation = `field:unknown:${label(path)}+${count} fields`;
      return;
    }
    const name = random.chance(0.5) ? random.pick(UNKNOWN_NAMES) : random.string(random.int(1, 30));
    const value = random.pick<unknown>([1, "x", { polluted: true }, [null], null]);
    // `__proto__` as an own key only survives in JSON text, which is what a client sends.
    Object.defineProperty(target, name, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    draft.mutation = `field:unknown:${label([...path, name])}=${shortly(value)}`;
    // The catalog's input schemas and the media body are closed: an unknown field is refused.
    const closed =
      path.length === 0
        ? draft.op.bodies.json?.additionalProperties === false
        : path.length === 1 &&
          path[0] === "input" &&
          inputSchemaOf(draft, world)?.additionalProperties === false;
    if (closed) draft.mustRefuse = `unknown field ${name} in a closed object`;
  },
};

const missing: Mutation = {
  name: "field:missing",
  weight: 5,
  applies: (draft) => jsonBody(draft) !== null && pathsOf(jsonBody(draft)!.value).length > 0,
  apply(draft, _world, random) {
    const body = jsonBody(draft)!;
    const required = draft.op.bodies.json?.required ?? [];
    const present = required.filter((name) => getAt(body.value, [name]) !== undefined);
    const path: JsonPath =
      present.length && random.chance(0.6)
        ? [random.pick(present)]
        : random.pick(pathsOf(body.value));
    const nulled = random.chance(0.3);
    setAt(body.value, path, nulled ? null : undefined);
    draft.mutation = `field:${nulled ? "null" : "missing"}:${label(path)}`;
    if (!nulled && path.length === 1 && required.includes(String(path[0])))
      draft.mustRefuse = `required field ${label(path)} is missing`;
  },
};

const duplicateKey: Mutation = {
  name: "field:duplicate-key",
  weight: 2,
  applies: (draft) => {
    const value = jsonBody(draft)?.value;
    return (
      value !== null &&
      typeof value === "object" &&
      !Array.isArray(value) &&
      Object.keys(value).length > 0
    );
  },
  apply(draft, _world, random) {
    const value = jsonBody(draft)!.value as Record<string, unknown>;
    const key = random.pick(Object.keys(value));
    const text = JSON.stringify(value);
    const second = JSON.stringify(random.pick<unknown>(["other", 0, null, { x: 1 }]));
    draft.body = { kind: "text", text: `${text.slice(0, -1)},${JSON.stringify(key)}:${second}}` };
    draft.mutation = `field:duplicate-key:${key}=${second}`;
  },
};

export const FIELD_MUTATIONS: Mutation[] = [
  wrongType,
  boundary,
  unknownField,
  missing,
  duplicateKey,
];
