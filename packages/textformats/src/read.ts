/** Narrow readers for JSON bodies whose unknown fields pass through the schemas. */
export type Json = Record<string, unknown>;

export const isRecord = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export const record = (value: unknown): Json => (isRecord(value) ? value : {});

export const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

export const text = (value: unknown): string | undefined =>
  typeof value === "string" ? value : undefined;

export const num = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;

/** A field counts as absent when missing or null: the OpenAI APIs send null for "not set". */
export const given = (value: unknown): boolean => value !== undefined && value !== null;

/** Drops keys whose value is undefined, so written bodies carry only what was set. */
export function compact<T extends Json>(value: T): T {
  for (const key of Object.keys(value)) if (value[key] === undefined) delete value[key];
  return value;
}
