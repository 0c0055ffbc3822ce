import { randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, unlink, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { assertKey, assertPrefix, contentTypeOf, isValidKey } from "./keys.ts";
import { MAX_LIST_ENTRIES, type Storage, type StoredEntry } from "./storage.ts";

/** Errors meaning "there is no file at this key" rather than "the disk failed". */
const MISSING = new Set(["ENOENT", "ENOTDIR", "EISDIR"]);

function errorCode(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

function isMissing(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && MISSING.has(code);
}

/**
 * Files under `dir`, one file per key at `<dir>/<key>`. Writes go to a temporary file
 * beside the target and are renamed over it, so a reader sees the old file or the new
 * one, never half of one. Temporary names contain `~`, which no key may contain, so
 * they can never be read, listed or counted as files.
 */
export function createLocalStorage(dir: string): Storage {
  const root = resolve(dir);
  // A valid key has no `..`, no leading `/` and no backslash, so this stays inside root.
  const pathOf = (key: string) => join(root, key);

  /** One mkdir where the parent exists (the usual case: a task's folder under `results/`). */
  async function makeDir(path: string): Promise<void> {
    try {
      await mkdir(path);
    } catch (error) {
      if (errorCode(error) === "EEXIST") return;
      if (errorCode(error) !== "ENOENT") throw error;
      await mkdir(path, { recursive: true });
    }
  }

  async function put(key: string, bytes: Uint8Array, _contentType: string): Promise<void> {
    assertKey(key);
    const path = pathOf(key);
    const temp = `${path}.~${randomUUID()}`;
    for (let attempt = 1; ; attempt++) {
      try {
        await makeDir(dirname(path));
        await writeFile(temp, bytes);
        await rename(temp, path);
        return;
      } catch (error) {
        await rm(temp, { force: true }).catch(() => {});
        // A concurrent deletePrefix may remove the directory between mkdir and rename;
        // creating it once more is enough, because the prefix is not deleted twice.
        if (errorCode(error) === "ENOENT" && attempt < 2) continue;
        throw new Error(`local storage: writing ${key} failed`, { cause: error });
      }
    }
  }

  async function get(key: string) {
    if (!isValidKey(key)) return null;
    let buffer: Buffer;
    try {
      buffer = await readFile(pathOf(key));
    } catch (error) {
      if (isMissing(error)) return null;
      throw new Error(`local storage: reading ${key} failed`, { cause: error });
    }
    const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    return { bytes, contentType: contentTypeOf(key), size: bytes.byteLength };
  }

  async function remove(key: string): Promise<void> {
    assertKey(key);
    try {
      await unlink(pathOf(key));
    } catch (error) {
      if (isMissing(error)) return;
      throw new Error(`local storage: deleting ${key} failed`, { cause: error });
    }
  }

  /** Every file below `prefix` with its key; an absent directory has none. */
  async function filesUnder(prefix: string): Promise<{ key: string; path: string }[]> {
    let entries: Awaited<ReturnType<typeof readdirRecursive>>;
    try {
      entries = await readdirRecursive(pathOf(prefix));
    } catch (error) {
      if (isMissing(error)) return [];
      throw new Error(`local storage: listing ${prefix} failed`, { cause: error });
    }
    const files: { key: string; path: string }[] = [];
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const path = join(entry.parentPath, entry.name);
      const key = relative(root, path).split(sep).join("/");
      if (isValidKey(key)) files.push({ key, path });
    }
    return files;
  }

  async function deletePrefix(prefix: string): Promise<number> {
    assertPrefix(prefix);
    const files = await filesUnder(prefix);
    try {
      await rm(pathOf(prefix), { recursive: true, force: true });
    } catch (error) {
      if (isMissing(error)) return 0;
      throw new Error(`local storage: deleting ${prefix} failed`, { cause: error });
    }
    return files.length;
  }

  async function list(prefix: string, olderThanMs?: number): Promise<StoredEntry[]> {
    assertPrefix(prefix);
    const cutoffMs =
      olderThanMs === undefined ? Number.POSITIVE_INFINITY : Date.now() - olderThanMs;
    const result: StoredEntry[] = [];
    for (const file of await filesUnder(prefix)) {
      if (result.length >= MAX_LIST_ENTRIES) break;
      const info = await stat(file.path).catch((error: unknown) => {
        // Deleted between the listing and now: simply not there any more.
        if (isMissing(error)) return null;
        throw new Error(`local storage: reading ${file.key} failed`, { cause: error });
      });
      if (info === null || info.mtimeMs >= cutoffMs) continue;
      result.push({ key: file.key, size: info.size, lastModifiedMs: Math.floor(info.mtimeMs) });
    }
    return result;
  }

  return { kind: "local", put, get, delete: remove, deletePrefix, list };
}

function readdirRecursive(path: string) {
  return readdir(path, { recursive: true, withFileTypes: true });
}
