/**
 * The real worker (apps/worker/src/main.ts, unchanged) for the images bench, adapted to
 * `startChildServer`: its log lines go to stderr, and the line announcing that it
 * started becomes the one JSON line `{"worker"}` on stdout the bench waits for. It also
 * ends when the parent bench's pipe closes, so a killed bench leaves no worker behind.
 * Configured by the environment exactly as main.ts is (DATABASE_SCHEMA, REDIS_PREFIX,
 * WORKER_CONCURRENCY, PROVIDER_ROUTES, UPSTREAM_OPENAI_*, STORAGE_DIR, ...).
 */
import { format } from "node:util";
import { exitWithParent } from "@gw/benchkit";

const STARTED = /^\[worker\] (\S+) started/;
let announced = false;
console.log = (...args: unknown[]) => {
  const line = format(...args);
  process.stderr.write(`${line}\n`);
  const started = STARTED.exec(line);
  if (started && !announced) {
    announced = true;
    process.stdout.write(`${JSON.stringify({ worker: started[1] })}\n`);
  }
};

// main.ts stops the worker gracefully on SIGTERM: running tasks finish first.
exitWithParent(() => process.kill(process.pid, "SIGTERM"));
await import("../../worker/src/main.ts");
