import { Value } from "@sinclair/typebox/value";
import { matchesRate } from "../catalog/compile.ts";
import { describeField } from "../catalog/fields.ts";
import type { CatalogModel, Operation, Scalar } from "../catalog/model.ts";
import type { RuleSpec } from "../catalog/spec.ts";
import { type Refusal, refuse } from "./errors.ts";

/** Says why a URL may not be used as a file, or null when it may. */
export type UrlCheck = (url: string) => string | null;

export interface TopLevel {
  image?: string | string[];
  mask?: string;
  n?: number;
  size?: string;
  quality?: string;
}

type Input = Record<string, unknown>;
type Step = { ok: true } | Refusal;
const OK: Step = { ok: true };

const show = (value: unknown) => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};
const shown = (conditions: Record<string, Scalar>) =>
  Object.entries(conditions)
    .map(([name, value]) => `input.${name} is ${show(value)}`)
    .join(" and ");

/** Moves the top-level common fields (spec 4.2: image, mask, n, size, quality) into the model's own fields. */
export function mapTopLevel(
  where: string,
  operation: Operation,
  top: TopLevel,
  input: Input,
): Step {
  const { spec } = operation;
  if (top.image !== undefined) {
    const field = spec.image_field;
    if (!field) return refuse("invalid_request", `${where} takes no source image.`);
    if (input[field] !== undefined)
      return refuse(
        "invalid_request",
        `Send the source image either as image or as input.${field}, not both.`,
      );
    const images = Array.isArray(top.image) ? top.image : [top.image];
    if (operation.fields[field]!.type === "url") {
      if (images.length !== 1)
        return refuse("invalid_request", `${where} takes exactly one source image.`);
      input[field] = images[0];
    } else input[field] = images;
  }
  if (top.mask !== undefined) {
    const field = spec.mask_field;
    if (!field)
      return refuse(
        "invalid_request",
        `${where} has no mask field; send a mask only to a mode that has one.`,
      );
    if (input[field] !== undefined)
      return refuse(
        "invalid_request",
        `Send the mask either as mask or as input.${field}, not both.`,
      );
    input[field] = top.mask;
  }
  for (const name of ["n", "size", "quality"] as const) {
    const value = top[name];
    if (value === undefined) continue;
    const field = spec.common?.[name];
    if (!field)
      return refuse(
        "invalid_request",
        `Field '${name}' is not a parameter of ${where}; set its own input fields instead (${Object.keys(operation.fields).join(", ")}).`,
      );
    if (input[field] !== undefined && input[field] !== value)
      return refuse("invalid_request", `'${name}' and input.${field} disagree; send one of them.`);
    input[field] = value;
  }
  return OK;
}

function unknownFields(
  where: string,
  model: CatalogModel,
  operation: Operation,
  input: Input,
): Step {
  for (const name of Object.keys(input)) {
    if (operation.fields[name]) continue;
    const elsewhere = [...model.operations.values()].find((other) => other.fields[name]);
    const hint = elsewhere
      ? ` It belongs to operation "${elsewhere.name}".`
      : ` Accepted fields: ${Object.keys(operation.fields).join(", ")}.`;
    return refuse("invalid_request", `Unknown field input.${name} for ${where}.${hint}`);
  }
  return OK;
}

function typeErrors(operation: Operation, input: Input): Step {
  const error = operation.check.Errors(input).First();
  if (!error) return OK;
  const name = error.path.split("/")[1] ?? "";
  const field = operation.fields[name];
  if (!field) return refuse("invalid_request", `Invalid input: ${error.message}`);
  const value = input[name];
  if (value === undefined)
    return refuse("invalid_request", `input.${name} is required: ${describeField(field)}.`);
  return refuse(
    "invalid_request",
    `input.${name} must be ${describeField(field)} (got ${show(value)}).`,
  );
}

const present = (value: unknown) => (Array.isArray(value) ? value.length > 0 : value !== undefined);
const files = (value: unknown): string[] =>
  Array.isArray(value) ? (value as string[]) : typeof value === "string" ? [value] : [];

function checkRule(rule: RuleSpec, input: Input, labelOf: (name: string) => string): Step {
  if ("exactly_one_of" in rule) {
    const given = rule.exactly_one_of.filter((name) => present(input[name]));
    if (given.length !== 1)
      return refuse(
        "invalid_request",
        `Pass exactly one of ${rule.exactly_one_of.map((name) => `input.${name}`).join(", ")}${given.length > 1 ? ", not several" : ""}.`,
      );
  } else if ("require" in rule) {
    if (!matchesRate(rule, input)) return OK;
    const missing = rule.require.find((name) => !present(input[name]));
    if (missing)
      return refuse("invalid_request", `input.${missing} is required when ${shown(rule.when)}.`);
  } else if ("allowed" in rule) {
    if (!matchesRate(rule, input)) return OK;
    for (const [name, values] of Object.entries(rule.allowed)) {
      if (input[name] !== undefined && !values.includes(input[name] as Scalar))
        return refuse(
          "invalid_request",
          `input.${name} must be one of ${values.map(show).join(", ")} when ${shown(rule.when)} (got ${show(input[name])}).`,
        );
    }
  } else if ("max_total" in rule) {
    const total = rule.fields.reduce((sum, name) => sum + files(input[name]).length, 0);
    if (total > rule.max_total)
      return refuse(
        "invalid_request",
        `At most ${rule.max_total} images in ${rule.fields.map(labelOf).join(" and ")} together (got ${total}).`,
      );
  } else {
    const seen = new Map<string, string>();
    for (const name of rule.distinct) {
      for (const url of new Set(files(input[name]))) {
        const first = seen.get(url);
        if (first)
          return refuse(
            "invalid_request",
            `The same image must not be sent in both ${first} and ${labelOf(name)}: ${show(url)}.`,
          );
        seen.set(url, labelOf(name));
      }
    }
  }
  return OK;
}

/** How a client named a field: the top-level image and mask land in the model's own fields. */
function label(operation: Operation, name: string, top: TopLevel): string {
  if (top.image !== undefined && name === operation.spec.image_field) return "image";
  if (top.mask !== undefined && name === operation.spec.mask_field) return "mask";
  return `input.${name}`;
}

function checkUrls(operation: Operation, input: Input, top: TopLevel, checkUrl: UrlCheck): Step {
  for (const [name, field] of Object.entries(operation.fields)) {
    if (field.type !== "url" && field.type !== "url_list") continue;
    for (const url of files(input[name])) {
      const problem = checkUrl(url);
      if (problem)
        return refuse(
          "invalid_request",
          `${label(operation, name, top)} must be a public HTTPS URL: ${problem}.`,
        );
    }
  }
  return OK;
}

/**
 * Validates and completes `input` in place: unknown fields are refused, omitted fields
 * take their defaults (an explicit false or 0 is kept), then values, the operation's
 * rules and file URLs are checked. The first problem is reported, naming its field.
 */
export function completeInput(
  where: string,
  model: CatalogModel,
  operation: Operation,
  input: Input,
  top: TopLevel,
  checkUrl: UrlCheck,
): Step {
  const steps = [
    () => unknownFields(where, model, operation, input),
    () => {
      Value.Default(operation.schema, input);
      return typeErrors(operation, input);
    },
    ...(operation.spec.rules ?? []).map(
      (rule) => () => checkRule(rule, input, (name) => label(operation, name, top)),
    ),
    () => checkUrls(operation, input, top, checkUrl),
  ];
  for (const step of steps) {
    const result = step();
    if (!result.ok) return result;
  }
  return OK;
}
