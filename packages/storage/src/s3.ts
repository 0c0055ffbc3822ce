import { S3Client } from "bun";
import { assertKey, assertPrefix, contentTypeOf, isValidKey, isValidPrefix } from "./keys.ts";
import { MAX_LIST_ENTRIES, type Storage, type StoredEntry } from "./storage.ts";

export interface S3StorageOptions {
  bucket: string;
  /** An S3-compatible endpoint such as `http://127.0.0.1:9000`; AWS when omitted. */
  endpoint?: string;
  region?: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Stored keys become `<prefix><key>`; a missing trailing "/" is added. */
  prefix?: string;
  /** Each S3 call fails after this long (default 60 s); Bun's S3 calls have no timeout. */
  timeoutMs?: number;
}

export const DEFAULT_S3_TIMEOUT_MS = 60_000;
/** S3 answers at most 1,000 keys per ListObjectsV2 page. */
const PAGE_KEYS = 1000;
/** Bounds one deletePrefix or list to a million objects; a task owns a handful. */
const MAX_PAGES = 1000;
/** Deletes in flight at once while emptying a prefix. */
const DELETE_CONCURRENCY = 16;

/**
 * S3 answers a missing object with NoSuchKey (Bun reports a bare 404 the same way).
 * `call` wraps every failure, so the S3 error is the cause.
 */
function isNotFound(error: unknown): boolean {
  const cause = (error as { cause?: unknown } | null)?.cause;
  const { name, code } = (cause ?? {}) as { name?: string; code?: string };
  return name === "S3Error" && (code === "NoSuchKey" || code === "NotFound");
}

function normalizePrefix(prefix: string | undefined): string {
  if (prefix === undefined || prefix === "") return "";
  const withSlash = prefix.endsWith("/") ? prefix : `${prefix}/`;
  if (!isValidPrefix(withSlash)) {
    throw new RangeError(
      `invalid S3 key prefix ${JSON.stringify(prefix)}: use segments of [A-Za-z0-9._-] joined by "/"`,
    );
  }
  return withSlash;
}

async function withTimeout<T>(work: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Files in an S3 bucket (or any S3-compatible store), addressed path-style
 * (`<endpoint>/<bucket>/<prefix><key>`), which MinIO, R2 and local stubs all accept.
 */
export function createS3Storage(options: S3StorageOptions): Storage {
  const storagePrefix = normalizePrefix(options.prefix);
  const timeoutMs = options.timeoutMs ?? DEFAULT_S3_TIMEOUT_MS;
  const client = new S3Client({
    bucket: options.bucket,
    accessKeyId: options.accessKeyId,
    secretAccessKey: options.secretAccessKey,
    virtualHostedStyle: false,
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    ...(options.region === undefined ? {} : { region: options.region }),
  });

  /** Runs one S3 call under the timeout; failures are thrown with the S3 error as cause. */
  async function call<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await withTimeout(work(), timeoutMs, `S3 ${what}`);
    } catch (error) {
      throw new Error(`S3 ${what} failed`, { cause: error });
    }
  }

  async function put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    assertKey(key);
    await call(`put ${key}`, () => client.write(storagePrefix + key, bytes, { type: contentType }));
  }

  async function get(key: string) {
    if (!isValidKey(key)) return null;
    try {
      const buffer = await call(`get ${key}`, () => client.file(storagePrefix + key).arrayBuffer());
      const bytes = new Uint8Array(buffer);
      return { bytes, contentType: contentTypeOf(key), size: bytes.byteLength };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async function remove(key: string): Promise<void> {
    assertKey(key);
    try {
      await call(`delete ${key}`, () => client.delete(storagePrefix + key));
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  /** Calls `visit` with each page of objects under `prefix` until it answers false. */
  async function eachPage(
    prefix: string,
    visit: (objects: { key: string; size: number; lastModifiedMs: number }[]) => Promise<boolean>,
  ): Promise<void> {
    let continuationToken: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const response = await call(`list ${prefix}`, () =>
        client.list({
          prefix: storagePrefix + prefix,
          maxKeys: PAGE_KEYS,
          ...(continuationToken === undefined ? {} : { continuationToken }),
        }),
      );
      const objects = (response.contents ?? [])
        .filter((object) => object.key.startsWith(storagePrefix))
        .map((object) => ({
          key: object.key.slice(storagePrefix.length),
          size: object.size ?? 0,
          lastModifiedMs: object.lastModified ? Date.parse(object.lastModified) : 0,
        }));
      if (!(await visit(objects))) return;
      if (!response.isTruncated || !response.nextContinuationToken) return;
      continuationToken = response.nextContinuationToken;
    }
    throw new Error(`S3 list ${prefix}: more than ${MAX_PAGES} pages of ${PAGE_KEYS} objects`);
  }

  async function deletePrefix(prefix: string): Promise<number> {
    assertPrefix(prefix);
    let deleted = 0;
    await eachPage(prefix, async (objects) => {
      for (let start = 0; start < objects.length; start += DELETE_CONCURRENCY) {
        const batch = objects.slice(start, start + DELETE_CONCURRENCY);
        // Keys another writer stored outside our key rules are still ours to delete.
        await Promise.all(
          batch.map((object) =>
            call(`delete ${object.key}`, () => client.delete(storagePrefix + object.key)).catch(
              (error: unknown) => {
                if (!isNotFound(error)) throw error;
              },
            ),
          ),
        );
        deleted += batch.length;
      }
      return true;
    });
    return deleted;
  }

  async function list(prefix: string, olderThanMs?: number): Promise<StoredEntry[]> {
    assertPrefix(prefix);
    const cutoffMs =
      olderThanMs === undefined ? Number.POSITIVE_INFINITY : Date.now() - olderThanMs;
    const result: StoredEntry[] = [];
    await eachPage(prefix, async (objects) => {
      for (const object of objects) {
        if (result.length >= MAX_LIST_ENTRIES) return false;
        if (isValidKey(object.key) && object.lastModifiedMs < cutoffMs) result.push(object);
      }
      return result.length < MAX_LIST_ENTRIES;
    });
    return result;
  }

  return { kind: "s3", put, get, delete: remove, deletePrefix, list };
}
