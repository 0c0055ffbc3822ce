import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** The id prefix of each kind of task: `img_…`, `aud_…`, `vid_…`. */
export type TaskIdPrefix = "img" | "aud" | "vid" | "tst";

/** A public task id: a kind prefix and 120 random bits, e.g. `img_8k2...`. */
export function newTaskId(prefix: TaskIdPrefix): string {
  const bytes = randomBytes(24);
  let text = "";
  for (const byte of bytes) text += ALPHABET[byte & 31];
  return `${prefix}_${text}`;
}

/** Image task ids as clients may send them back; anything else is not looked up at all. */
export const TASK_ID_PATTERN = /^img_[0-9a-z]{24}$/;

/** Audio task ids, likewise. */
export const AUDIO_TASK_ID_PATTERN = /^aud_[0-9a-z]{24}$/;

/** Video task ids, likewise. */
export const VIDEO_TASK_ID_PATTERN = /^vid_[0-9a-z]{24}$/;
