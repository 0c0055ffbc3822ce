export type { RunOutcome } from "@gw/tasks";
export { loadWorkerConfig, type WorkerConfig } from "./config.ts";
export { runMaintenance, startMaintenance } from "./maintenance.ts";
export { startWorker, type WorkerDeps } from "./worker.ts";
