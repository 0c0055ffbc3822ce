export { STORAGE_ENV, storageFromEnv } from "./env.ts";
export {
  assertKey,
  assertPrefix,
  contentTypeOf,
  DEFAULT_CONTENT_TYPE,
  isValidKey,
  isValidPrefix,
  MAX_KEY_LENGTH,
} from "./keys.ts";
export {
  LINK_CLOCK_SKEW_SECONDS,
  LINK_PATH_PREFIX,
  type LinkCheck,
  type LinkSecret,
  linkTtlFromEnv,
  MAX_LINK_TTL_SECONDS,
  MIN_LINK_SECRET_BYTES,
  signLink,
  verifyLink,
} from "./links.ts";
export { createLocalStorage } from "./local.ts";
export { createS3Storage, DEFAULT_S3_TIMEOUT_MS, type S3StorageOptions } from "./s3.ts";
export { MAX_LIST_ENTRIES, type Storage, type StoredEntry, type StoredFile } from "./storage.ts";
