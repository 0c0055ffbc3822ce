import { createHash } from "node:crypto";

/** JSON with object keys sorted, so equal requests hash equally whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, each]) => each !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, each]) => `${JSON.stringify(key)}:${canonical(each)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * The fingerprint an Idempotency-Key is bound to: the request's fields in canonical
 * form plus the SHA-256 of every uploaded file, so a retry with the same key and the
 * same request is recognised and any difference is refused.
 */
export function requestHash(endpoint: string, fields: unknown, files: Uint8Array[] = []): string {
  const hash = createHash("sha256").update(endpoint).update("\n").update(canonical(fields));
  for (const file of files) hash.update("\n").update(createHash("sha256").update(file).digest());
  return hash.digest("hex");
}
