/** Keys longer than this are refused; real ones (`results/<taskId>/<index>.<ext>`) are far shorter. */
export const MAX_KEY_LENGTH = 512;

/**
 * Allowed characters. Everything here is safe unencoded in a URL path and as a file
 * name, so a key reaches the disk, S3 and a signed link unchanged. Backslash, NUL,
 * `%`, `~` and whitespace are outside it.
 */
const KEY_CHARS = /^[A-Za-z0-9._/-]+$/;

/**
 * A key is a relative path of non-empty segments. Besides the character set, any `..`
 * is refused (not only whole `..` segments, to keep the rule easy to audit), as are
 * `.` segments, a leading or trailing `/` and empty segments (`a//b`), so that a key
 * always names one file strictly inside the storage root.
 */
export function isValidKey(key: unknown): key is string {
  if (typeof key !== "string") return false;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) return false;
  if (!KEY_CHARS.test(key) || key.includes("..")) return false;
  for (const segment of key.split("/")) {
    if (segment === "" || segment === ".") return false;
  }
  return true;
}

/** Throws RangeError unless `key` is a valid key; for keys the caller produced. */
export function assertKey(key: string): void {
  if (!isValidKey(key)) throw new RangeError(`invalid storage key: ${JSON.stringify(key)}`);
}

/**
 * A prefix is a valid key followed by `/` (e.g. `uploads/<taskId>/`), so it always
 * names a whole "directory": `results/ab/` never matches `results/abc/0.png`, and an
 * empty prefix (everything) cannot be passed by accident.
 */
export function isValidPrefix(prefix: unknown): prefix is string {
  return (
    typeof prefix === "string" &&
    prefix.endsWith("/") &&
    prefix.length <= MAX_KEY_LENGTH &&
    isValidKey(prefix.slice(0, -1))
  );
}

/** Throws RangeError unless `prefix` is a valid prefix. */
export function assertPrefix(prefix: string): void {
  if (!isValidPrefix(prefix)) {
    throw new RangeError(
      `invalid storage prefix: ${JSON.stringify(prefix)} (a valid key followed by "/")`,
    );
  }
}

const CONTENT_TYPES: Record<string, string> = {
  png: "image/png",
  jpeg: "image/jpeg",
  jpg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  mp4: "video/mp4",
  json: "application/json",
};

export const DEFAULT_CONTENT_TYPE = "application/octet-stream";

/** The content type a key is served with, from its extension (case-insensitive). */
export function contentTypeOf(key: string): string {
  const name = key.slice(key.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return DEFAULT_CONTENT_TYPE;
  return CONTENT_TYPES[name.slice(dot + 1).toLowerCase()] ?? DEFAULT_CONTENT_TYPE;
}
