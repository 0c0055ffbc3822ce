/**
 * Last-resort handlers for a long-running process (api or worker). Code paths that reach
 * Postgres or Redis handle their own errors; these catch what a driver lets escape, so an
 * outage of either never takes a process down with it:
 * - a rejected promise nobody awaited is logged, and the process goes on;
 * - an exception thrown outside any handler goes on when it is a connection error (the
 *   driver reconnects), and otherwise ends the process with code 1 so its supervisor
 *   (`bun run start`, compose) starts a clean one.
 */

const CONNECTION_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTCONN",
]);

const CONNECTION_MESSAGES = [
  /connection is closed/i,
  /socket (closed|hang up)/i,
  /reached the max retries per request limit/i,
  /write after end/i,
];

/** Whether an error means a connection to Postgres or Redis (or another service) was lost. */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && CONNECTION_CODES.has(code)) return true;
  if (error.name === "MaxRetriesPerRequestError") return true;
  return CONNECTION_MESSAGES.some((pattern) => pattern.test(error.message));
}

export interface ProcessGuardOptions {
  /** Prefix of each log line, e.g. "[worker]". */
  name: string;
  log?: (line: string) => void;
  exit?: (code: number) => void;
  target?: Pick<NodeJS.Process, "on">;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return `${error.name}${typeof code === "string" ? ` ${code}` : ""}: ${error.message}`;
  }
  return String(error);
}

/** Installs the handlers on the process (or `target`), once per process. */
export function guardProcess({
  name,
  log = (line) => console.error(line),
  exit = (code) => process.exit(code),
  target = process,
}: ProcessGuardOptions): {
  onRejection: (reason: unknown) => void;
  onException: (error: unknown) => void;
} {
  const onRejection = (reason: unknown) => {
    log(`${name} unhandled rejection (going on): ${describe(reason)}`);
  };
  const onException = (error: unknown) => {
    if (isConnectionError(error)) {
      log(`${name} connection error outside a request (going on): ${describe(error)}`);
      return;
    }
    log(`${name} uncaught exception, exiting for a restart: ${describe(error)}`);
    if (error instanceof Error && error.stack) log(error.stack);
    exit(1);
  };
  target.on("unhandledRejection", onRejection);
  target.on("uncaughtException", onException);
  return { onRejection, onException };
}
