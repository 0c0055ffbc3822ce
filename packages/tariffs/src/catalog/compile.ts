import { TypeCompiler } from "@sinclair/typebox/compiler";
import { usdTextToQuota } from "../money.ts";
import { finiteValues, inputSchema, valueFits } from "./fields.ts";
import {
  type CatalogModel,
  ENDPOINT_TYPES,
  type Operation,
  type Rate,
  type Scalar,
  type Surcharge,
} from "./model.ts";
import type { FieldSpec, ModelSpec, OperationSpec, RuleSpec } from "./spec.ts";

/** Problems found in a catalog, each with the path of the offending entry. */
export type Problems = string[];

const FILE_TYPES = new Set(["url", "url_list"]);

function checkConditions(
  where: string,
  fields: Record<string, FieldSpec>,
  conditions: Record<string, Scalar>,
  problems: Problems,
) {
  for (const [name, value] of Object.entries(conditions)) {
    const field = fields[name];
    if (!field) problems.push(`${where}: "${name}" is not an input field`);
    else if (!valueFits(field, value))
      problems.push(`${where}: ${JSON.stringify(value)} is not a value of "${name}"`);
  }
}

function checkFields(where: string, fields: Record<string, FieldSpec>, problems: Problems) {
  for (const [name, field] of Object.entries(fields)) {
    const at = `${where}.input.${name}`;
    if (field.default !== undefined && field.required)
      problems.push(`${at}: a required field cannot have a default`);
    if (field.default !== undefined && !valueFits(field, field.default))
      problems.push(`${at}: default ${JSON.stringify(field.default)} does not fit the field`);
    for (const option of field.enum ?? []) {
      const type = typeof option;
      const expected = field.type === "integer" || field.type === "number" ? "number" : "string";
      if (type !== expected || (field.type === "integer" && !Number.isInteger(option)))
        problems.push(`${at}: enum value ${JSON.stringify(option)} is not ${field.type}`);
    }
  }
}

function checkRule(
  where: string,
  fields: Record<string, FieldSpec>,
  rule: RuleSpec,
  problems: Problems,
) {
  const known = (name: string) => {
    if (!fields[name]) problems.push(`${where}: "${name}" is not an input field`);
  };
  if ("exactly_one_of" in rule) rule.exactly_one_of.forEach(known);
  if ("require" in rule) {
    checkConditions(where, fields, rule.when, problems);
    rule.require.forEach(known);
  }
  if ("allowed" in rule) {
    checkConditions(where, fields, rule.when, problems);
    for (const [name, values] of Object.entries(rule.allowed)) {
      const field = fields[name];
      if (!field) problems.push(`${where}: "${name}" is not an input field`);
      else if (!values.every((value) => valueFits(field, value)))
        problems.push(`${where}: allowed values of "${name}" do not fit the field`);
    }
  }
  if ("max_total" in rule || "distinct" in rule) {
    const names = "max_total" in rule ? rule.fields : rule.distinct;
    for (const name of names) {
      known(name);
      if (fields[name] && !FILE_TYPES.has(fields[name]!.type))
        problems.push(`${where}: "${name}" is not a URL field`);
    }
  }
}

/** Every combination of the values of the fields a tariff's rates depend on. */
function combinations(
  fields: Record<string, FieldSpec>,
  names: string[],
): Record<string, Scalar>[] | null {
  let result: Record<string, Scalar>[] = [{}];
  for (const name of names) {
    const field = fields[name];
    const values = field ? finiteValues(field) : null;
    if (!values) return null;
    result = result.flatMap((partial) => values.map((value) => ({ ...partial, [name]: value })));
    if (result.length > 4096) return null;
  }
  return result;
}

export function matchesRate(
  rate: { when: Record<string, Scalar> },
  input: Record<string, unknown>,
) {
  return Object.entries(rate.when).every(([name, value]) => input[name] === value);
}

function compileTariff(where: string, operation: OperationSpec, problems: Problems) {
  const { tariff } = operation;
  const fields = operation.input;
  const rates: Rate[] = [];
  tariff.rates.forEach((rate, index) => {
    const at = `${where}.tariff.rates[${index}]`;
    const quota = usdTextToQuota(rate.usd);
    if (quota === null)
      problems.push(`${at}.usd: "${rate.usd}" is finer than one quota unit ($0.000002)`);
    checkConditions(at, fields, rate.when ?? {}, problems);
    rates.push({ when: rate.when ?? {}, quota: quota ?? 0n });
  });
  if ("field" in tariff.quantity) {
    const field = fields[tariff.quantity.field];
    if (field?.type !== "integer" || (field.default === undefined && !field.required))
      problems.push(
        `${where}.tariff.quantity: "${tariff.quantity.field}" must be an integer input field with a default or required`,
      );
  }
  // Every input the schema accepts must have a price: check all combinations of the
  // values the rates depend on, unless a rate without conditions catches the rest.
  if (!rates.some((rate) => Object.keys(rate.when).length === 0)) {
    const names = [...new Set(rates.flatMap((rate) => Object.keys(rate.when)))];
    const combos = combinations(fields, names);
    if (!combos)
      problems.push(
        `${where}.tariff.rates: conditions on open-ended fields need a final rate without "when"`,
      );
    for (const combo of combos ?? []) {
      if (!rates.some((rate) => matchesRate(rate, combo)))
        problems.push(`${where}.tariff.rates: no rate for ${JSON.stringify(combo)}`);
    }
  }
  const surcharges: Surcharge[] = (tariff.surcharges ?? []).map((surcharge, index) => {
    const at = `${where}.tariff.surcharges[${index}]`;
    const quota = usdTextToQuota(surcharge.usd);
    if (quota === null) problems.push(`${at}.usd: "${surcharge.usd}" is finer than one quota unit`);
    for (const name of surcharge.count) {
      if (!fields[name] || !FILE_TYPES.has(fields[name]!.type))
        problems.push(`${at}.count: "${name}" is not a URL input field`);
    }
    return { unit: surcharge.unit, quota: quota ?? 0n, count: surcharge.count };
  });
  return { rates, surcharges };
}

function compileOperation(
  where: string,
  name: string,
  spec: OperationSpec,
  problems: Problems,
): Operation {
  const fields = spec.input;
  checkFields(where, fields, problems);
  for (const [role, fieldName] of [
    ["image_field", spec.image_field],
    ["mask_field", spec.mask_field],
  ] as const) {
    if (fieldName === undefined) continue;
    const field = fields[fieldName];
    if (!field || !FILE_TYPES.has(field.type))
      problems.push(`${where}.${role}: "${fieldName}" is not a URL input field`);
    if (role === "mask_field" && field?.type === "url_list")
      problems.push(`${where}.mask_field: a mask is one URL, not a list`);
  }
  for (const [common, fieldName] of Object.entries(spec.common ?? {})) {
    if (!fields[fieldName])
      problems.push(`${where}.common.${common}: "${fieldName}" is not an input field`);
  }
  (spec.rules ?? []).forEach((rule, index) => {
    checkRule(`${where}.rules[${index}]`, fields, rule, problems);
  });
  const { rates, surcharges } = compileTariff(where, spec, problems);
  const schema = inputSchema(fields);
  return { name, spec, fields, schema, check: TypeCompiler.Compile(schema), rates, surcharges };
}

/**
 * Turns one model entry into its callable models (the family and each variant), or
 * records why it cannot be used. Nothing here throws on bad data.
 */
export function compileModel(where: string, spec: ModelSpec, problems: Problems): CatalogModel[] {
  const media = spec.kind !== "text";
  const operationSpecs = Object.entries(spec.operations ?? {});
  if (media && operationSpecs.length === 0)
    problems.push(
      `${where}: ${spec.kind === "image" ? "an" : "a"} ${spec.kind} model needs operations`,
    );
  if (!media && operationSpecs.length > 0)
    problems.push(`${where}: a text model has no media operations`);
  if (!media && !spec.text_prices) problems.push(`${where}: a text model needs text_prices`);
  if (!media && !spec.tokenizer)
    problems.push(`${where}: a text model needs a tokenizer (for local token counts)`);
  if (operationSpecs.filter(([, operation]) => operation.default).length > 1)
    problems.push(`${where}: at most one operation may be the default`);
  for (const [key, text] of Object.entries(spec.text_prices ?? {})) {
    if (!/^[0-9]+(\.[0-9]+)?$/.test(text))
      problems.push(`${where}.text_prices.${key}: not a decimal`);
  }
  const operations = new Map<string, Operation>();
  for (const [name, operation] of operationSpecs) {
    if (!/^[a-z][a-z0-9-]{0,63}$/.test(name))
      problems.push(`${where}.operations: "${name}" must be lower-case letters, digits and -`);
    operations.set(
      name,
      compileOperation(`${where}.operations.${name}`, name, operation, problems),
    );
  }
  const base = {
    spec,
    kind: spec.kind,
    available: spec.available ?? true,
    endpointTypes: spec.endpoint_types ?? ENDPOINT_TYPES[spec.kind],
    operations,
  };
  const variants = spec.variants ?? [];
  const family: CatalogModel = {
    ...base,
    id: spec.id,
    upstreamModel: variants[0]?.upstream_model ?? spec.upstream?.model ?? spec.id,
    ...(variants.length > 0 ? { variants: variants.map(({ id, label }) => ({ id, label })) } : {}),
  };
  return [
    family,
    ...variants.map((variant) => ({
      ...base,
      id: variant.id,
      family: { id: spec.id, label: variant.label },
      upstreamModel: variant.upstream_model ?? variant.id,
    })),
  ];
}
