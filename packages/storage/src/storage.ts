/** One stored file, read whole into memory. */
export interface StoredFile {
  bytes: Uint8Array;
  /** Derived from the key's extension (see `contentTypeOf`), the same on every backend. */
  contentType: string;
  size: number;
}

/** One entry of a `list`. */
export interface StoredEntry {
  key: string;
  size: number;
  lastModifiedMs: number;
}

/** At most this many entries come back from one `list` call; cleanup simply runs again. */
export const MAX_LIST_ENTRIES = 10_000;

/**
 * Where result files and uploaded source files live. Keys are relative paths such as
 * `results/<taskId>/<index>.<ext>` or `uploads/<taskId>/<n>` (rules in `isValidKey`).
 * A missing file is an answer (`null`, or a no-op for deletes); a failing backend
 * throws with the cause attached.
 */
export interface Storage {
  readonly kind: "local" | "s3";
  /**
   * Writes the whole file, replacing any previous one, so retries that write the same
   * key are harmless. Throws RangeError for an invalid key.
   */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** The file, or null when it is missing or the key is invalid (keys may come from URLs). */
  get(key: string): Promise<StoredFile | null>;
  /** Deletes one file; a missing file is fine. Throws RangeError for an invalid key. */
  delete(key: string): Promise<void>;
  /**
   * Deletes every file under `prefix` (a valid key followed by "/", e.g. `uploads/<taskId>/`)
   * and answers how many there were. Throws RangeError for an invalid prefix.
   */
  deletePrefix(prefix: string): Promise<number>;
  /**
   * Files under `prefix`; with `olderThanMs`, only those last modified more than that many
   * milliseconds ago. At most `MAX_LIST_ENTRIES` entries, in no particular order.
   */
  list(prefix: string, olderThanMs?: number): Promise<StoredEntry[]>;
}
