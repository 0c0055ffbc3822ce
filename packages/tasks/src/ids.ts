import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** A public task id: a kind prefix and 120 random bits, e.g. `img_8k2...`. */
export function newTaskId(kind: "img"): string {
  const bytes = randomBytes(24);
  let text = "";
  for (const byte of bytes) text += ALPHABET[byte & 31];
  return `${kind}_${text}`;
}

/** Task ids as clients may send them back; anything else is not looked up at all. */
export const TASK_ID_PATTERN = /^img_[0-9a-z]{24}$/;
