/** Defaults the local start probes, and the error a CLI prints without a stack trace. */
export const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres";
export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

export type BackendErrorCode =
  | "MISSING_ENV"
  | "REDIS_NOT_INSTALLED"
  | "REDIS_START_FAILED"
  | "POSTGRES_DATA_IN_USE";

/** A failure whose message says what to do; a CLI prints it and exits 1, no stack trace. */
export class BackendError extends Error {
  override readonly name = "BackendError";
  constructor(
    readonly code: BackendErrorCode,
    message: string,
  ) {
    super(message);
  }
}
