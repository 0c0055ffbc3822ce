import { join, resolve } from "node:path";
import { isValidPrefix } from "./keys.ts";
import { createLocalStorage } from "./local.ts";
import { createS3Storage } from "./s3.ts";
import type { Storage } from "./storage.ts";

/** Every variable this package reads, for turbo.json and deployment docs. */
export const STORAGE_ENV = [
  "STORAGE",
  "STORAGE_DIR",
  "S3_BUCKET",
  "S3_ENDPOINT",
  "S3_REGION",
  "S3_ACCESS_KEY_ID",
  "S3_SECRET_ACCESS_KEY",
  "S3_PREFIX",
  "RESULT_LINK_TTL_SECONDS",
] as const;

type Env = Record<string, string | undefined>;

/** A set, non-blank value, trimmed; blank counts as unset. */
function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

function required(env: Env, name: string): string {
  const value = read(env, name);
  if (value === undefined) throw new Error(`${name} is required when STORAGE=s3`);
  return value;
}

// AWS rules, loosened to underscores and longer names as some S3-compatible stores allow;
// the name goes into a URL path unencoded.
const BUCKET = /^[a-z0-9][a-z0-9._-]{1,253}[a-z0-9]$/;
const REGION = /^[A-Za-z0-9-]{1,64}$/;

function endpointOf(env: Env): string | undefined {
  const value = read(env, "S3_ENDPOINT");
  if (value === undefined) return undefined;
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {}
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new Error(
      `S3_ENDPOINT must be an http(s) URL such as "http://127.0.0.1:9000"; got "${value}"`,
    );
  }
  return value.replace(/\/+$/, "");
}

function s3FromEnv(env: Env): Storage {
  const bucket = required(env, "S3_BUCKET");
  if (!BUCKET.test(bucket)) {
    throw new Error(`S3_BUCKET must be a bucket name (3-255 of a-z 0-9 . _ -); got "${bucket}"`);
  }
  const region = read(env, "S3_REGION");
  if (region !== undefined && !REGION.test(region)) {
    throw new Error(`S3_REGION must look like "us-east-1" or "auto"; got "${region}"`);
  }
  const prefix = read(env, "S3_PREFIX");
  if (prefix !== undefined && !isValidPrefix(prefix.endsWith("/") ? prefix : `${prefix}/`)) {
    throw new Error(
      `S3_PREFIX must be a relative path of [A-Za-z0-9._-] segments joined by "/"; got "${prefix}"`,
    );
  }
  const accessKeyId = required(env, "S3_ACCESS_KEY_ID");
  const secretAccessKey = required(env, "S3_SECRET_ACCESS_KEY");
  const endpoint = endpointOf(env);
  return createS3Storage({
    bucket,
    accessKeyId,
    secretAccessKey,
    ...(endpoint === undefined ? {} : { endpoint }),
    ...(region === undefined ? {} : { region }),
    ...(prefix === undefined ? {} : { prefix }),
  });
}

/**
 * The storage the environment asks for: `STORAGE=local` (default) keeps files under
 * `STORAGE_DIR`, or `<dataDir>/files` when unset; `STORAGE=s3` needs S3_BUCKET,
 * S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY and takes S3_ENDPOINT, S3_REGION and
 * S3_PREFIX. Any bad or missing setting throws an Error naming the variable; secrets
 * are never echoed.
 */
export function storageFromEnv(env: Env, dataDir: string): Storage {
  const kind = (read(env, "STORAGE") ?? "local").toLowerCase();
  if (kind === "s3") return s3FromEnv(env);
  if (kind !== "local") {
    throw new Error(`STORAGE must be "local" or "s3"; got "${env.STORAGE}"`);
  }
  const dir = read(env, "STORAGE_DIR");
  return createLocalStorage(dir === undefined ? join(dataDir, "files") : resolve(dir));
}
