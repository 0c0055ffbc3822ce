import { appendFileSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { createLogger, type Logger } from "@gw/telemetry";

/**
 * Log capture for tests: every line an in-process test api writes is kept in memory
 * (for assertions) and, when the test runner names a folder (GW_TEST_LOG_DIR), appended
 * to a file there, so the whole run's logs can be searched for secrets afterwards.
 */
export function captureLogs(service: string): { logger: Logger; lines: () => string[] } {
  const lines: string[] = [];
  const dir = process.env.GW_TEST_LOG_DIR;
  const fd = dir ? openSync(join(dir, `${service}-${process.pid}.log`), "a") : null;
  const logger = createLogger({
    service,
    level: "info",
    destination: {
      write(line: string) {
        lines.push(line);
        if (fd !== null) writeSync(fd, line);
      },
    },
  });
  return { logger, lines: () => lines };
}

/** Appends a secret a test made to the runner's list, to be searched for in every log. */
export function recordTestSecret(secret: string): void {
  const file = process.env.GW_TEST_SECRETS_FILE;
  if (file) appendFileSync(file, `${secret}\n`);
}

/** Appends text a spawned process printed to the run's log folder. */
export function keepTestOutput(name: string, text: string): void {
  const dir = process.env.GW_TEST_LOG_DIR;
  if (dir) appendFileSync(join(dir, `${name}.log`), text);
}
