import pino, { type DestinationStream, type Logger } from "pino";
import pretty from "pino-pretty";

export type { Logger } from "pino";

export interface LoggerOptions {
  /** `api` or `worker`: every line carries it. */
  service: string;
  /** pino's levels: trace, debug, info, warn, error, fatal, silent. */
  level?: string;
  /** `json` (default) or `pretty`, the human-readable mode of the local start. */
  format?: string;
  /** Where lines go; standard output unless given (tests capture into a file). */
  destination?: DestinationStream;
}

/**
 * Fields that may hold a secret never leave the process, whatever a caller passes:
 * the logger replaces them. Lines carry a key's id, never the key.
 */
const REDACTED = [
  "authorization",
  "secret",
  "token",
  "password",
  "api_key",
  "apiKey",
  "headers",
  "body",
  "*.authorization",
  "*.secret",
  "*.token",
  "*.password",
  "*.api_key",
  "*.apiKey",
  "*.headers",
  "*.body",
];

const LEVELS = new Set(["trace", "debug", "info", "warn", "error", "fatal", "silent"]);

/** A structured JSON logger (pino), or its human-readable form for a terminal. */
export function createLogger(options: LoggerOptions): Logger {
  const level = options.level && LEVELS.has(options.level) ? options.level : "info";
  const destination =
    options.destination ??
    (options.format === "pretty"
      ? pretty({
          sync: true,
          singleLine: true,
          colorize: Boolean(process.stdout.isTTY),
          ignore: "pid,hostname",
        })
      : pino.destination({ dest: 1, sync: false }));
  return pino(
    {
      level,
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED, censor: "[redacted]" },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

/** LOG_LEVEL and LOG_FORMAT from the environment. */
export function loggerFromEnv(
  service: string,
  env: Record<string, string | undefined> = process.env,
): Logger {
  return createLogger({
    service,
    ...(env.LOG_LEVEL ? { level: env.LOG_LEVEL } : {}),
    ...(env.LOG_FORMAT ? { format: env.LOG_FORMAT } : {}),
  });
}

/** An error's message and cause for a log line, never its stack's file paths to clients. */
export function errorFields(error: unknown): { err: string; cause?: string; code?: string } {
  if (!(error instanceof Error)) return { err: String(error) };
  const code = (error as { code?: unknown }).code;
  const cause = (error as { cause?: unknown }).cause;
  return {
    err: `${error.name}: ${error.message}`,
    ...(typeof code === "string" ? { code } : {}),
    ...(cause instanceof Error ? { cause: `${cause.name}: ${cause.message}` } : {}),
  };
}
