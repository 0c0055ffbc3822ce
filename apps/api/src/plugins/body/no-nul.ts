import { ApiError } from "../../errors.ts";
import { checkJsonDepth } from "./json-depth.ts";

/**
 * Refuses text holding U+0000 anywhere in a parsed body, in values and in keys: Postgres
 * text and jsonb cannot store it, so it would fail deep inside a write (a 500) instead of
 * being refused at the door. The message names where it is. Depth is bounded by the
 * JSON depth check, so the walk is too.
 */
export function refuseNul(value: unknown, where: string): void {
  if (typeof value === "string") {
    if (value.includes("\u0000"))
      throw new ApiError(
        "invalid_request",
        `${where} contains a NUL character (\\u0000); text may not contain it`,
      );
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) refuseNul(item, `${where}[${index}]`);
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      refuseNul(key, `A key in ${where}`);
      refuseNul(item, `${where}.${key}`);
    }
  }
}

/**
 * JSON text from inside a body (a multipart field holding JSON): the same rules as a
 * JSON body, depth first, then no NUL. Null when it is not JSON.
 */
export function parseJsonText(text: string, where: string): unknown {
  checkJsonDepth(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  refuseNul(value, where);
  return value;
}
