import { isRecord, type Json, list, record } from "../read.ts";

/** snake_case words become lowerCamel; any other key (`__proto__`, `_x`) stays as sent. */
const camel = (key: string) =>
  /^[a-z][a-z0-9]*(?:_[a-z][a-z0-9]*)+$/.test(key)
    ? key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())
    : key;

/**
 * One object's own keys in lowerCamel form. Google's JSON mapping accepts snake_case too
 * (its curl examples use it), so requests are read in one spelling. Only API objects are
 * renamed, one level at a time: tool schemas, call arguments and responses keep their keys.
 */
export function camelKeys(value: unknown): Json {
  const out: Json = {};
  // Defined, not assigned: an own "__proto__" key stays a key instead of a prototype.
  for (const [key, entry] of Object.entries(record(value)))
    Object.defineProperty(out, camel(key), {
      value: entry,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

function part(value: unknown): Json {
  const out = camelKeys(value);
  for (const key of ["inlineData", "fileData", "functionCall", "functionResponse"])
    if (isRecord(out[key])) out[key] = camelKeys(out[key]);
  return out;
}

const content = (value: unknown): Json => {
  const out = camelKeys(value);
  if (Array.isArray(out.parts)) out.parts = out.parts.map(part);
  return out;
};

function tool(value: unknown): Json {
  const out = camelKeys(value);
  if (Array.isArray(out.functionDeclarations))
    out.functionDeclarations = out.functionDeclarations.map(camelKeys);
  return out;
}

/** A generateContent request with every API key in lowerCamel form. */
export function normalizeRequest(body: Json): Json {
  const out = camelKeys(body);
  out.contents = list(out.contents).map(content);
  if (isRecord(out.systemInstruction)) out.systemInstruction = content(out.systemInstruction);
  if (isRecord(out.generationConfig)) out.generationConfig = camelKeys(out.generationConfig);
  if (Array.isArray(out.tools)) out.tools = out.tools.map(tool);
  if (isRecord(out.toolConfig)) {
    const config = camelKeys(out.toolConfig);
    if (isRecord(config.functionCallingConfig))
      config.functionCallingConfig = camelKeys(config.functionCallingConfig);
    out.toolConfig = config;
  }
  return out;
}
