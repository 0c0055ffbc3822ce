import { isRecord, type Json } from "../read.ts";

const NESTED = new Set(["properties", "items", "anyOf"]);

/**
 * A Gemini `Schema` (OpenAPI 3.0 subset, types in upper case, `nullable`) as JSON Schema,
 * for function declarations that use `parameters` rather than `parametersJsonSchema`.
 */
export function jsonSchemaOf(value: unknown): Json {
  if (!isRecord(value)) return {};
  const out: Json = {};
  for (const [key, entry] of Object.entries(value)) {
    if (key === "nullable" || key === "propertyOrdering") continue;
    if (key === "type" && typeof entry === "string") out.type = entry.toLowerCase();
    else if (key === "properties" && isRecord(entry))
      out.properties = Object.fromEntries(
        Object.entries(entry).map(([name, schema]) => [name, jsonSchemaOf(schema)]),
      );
    else if (NESTED.has(key) && Array.isArray(entry)) out[key] = entry.map(jsonSchemaOf);
    else if (key === "items") out.items = jsonSchemaOf(entry);
    else out[key] = entry;
  }
  if (value.nullable === true && typeof out.type === "string") out.type = [out.type, "null"];
  return out;
}
