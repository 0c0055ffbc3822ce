/**
 * Why a command did not do what was asked. Every expected failure is one of these values;
 * `exitCodeOf` is the one place a failure becomes the process's exit status.
 */
export type Failure =
  /** The command line is wrong: unknown command, bad flag, missing argument. */
  | { code: "usage"; message: string; help?: string }
  /** No admin token was given, or its file could not be read. */
  | { code: "no_token"; message: string }
  /** The gateway could not be reached, or did not answer in time. */
  | { code: "connection_failed"; message: string }
  /** The gateway answered with its error shape `{error: {message, type, code}}`. */
  | { code: "api_error"; status: number; apiCode: string; message: string };

export type Result<T> = { ok: true; value: T } | { ok: false; failure: Failure };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(failure: Failure): Result<T> => ({ ok: false, failure });
export const usage = <T = never>(message: string, help?: string): Result<T> =>
  fail({ code: "usage", message, ...(help === undefined ? {} : { help }) });

/** 2 when the invocation itself is wrong (fix the command line), 1 when the gateway refused or failed. */
export function exitCodeOf(failure: Failure): 1 | 2 {
  return failure.code === "usage" || failure.code === "no_token" ? 2 : 1;
}

/** One line for stderr; an api error names its status and code so scripts and people can act on it. */
export function describeFailure(failure: Failure): string {
  if (failure.code === "api_error")
    return `${failure.message} (HTTP ${failure.status}, ${failure.apiCode})`;
  return failure.message;
}
