export { loadWorkerConfig, type WorkerConfig } from "./config.ts";
export { runMaintenance, startMaintenance } from "./maintenance.ts";
export type { RunOutcome } from "./run-task.ts";
export { startWorker, type WorkerDeps } from "./worker.ts";
