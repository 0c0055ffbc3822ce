export * from "./engine/index.ts";
export { requestHash } from "./hash.ts";
export { inTurn, type Turn } from "./idempotency.ts";
export {
  AUDIO_TASK_ID_PATTERN,
  newTaskId,
  TASK_ID_PATTERN,
  type TaskIdPrefix,
  VIDEO_TASK_ID_PATTERN,
} from "./ids.ts";
export { CompletionWaiter, type WaitOptions } from "./notify.ts";
export {
  ack,
  DEFAULT_PARTITIONS,
  enqueue,
  ensureGroup,
  GROUP,
  type Job,
  type NewJob,
  type PartitionStats,
  partitionOf,
  queueStats,
  readJobs,
  reclaimJobs,
  streamKey,
  touchJobs,
} from "./queue.ts";
export * from "./records.ts";
export { resultKey, resultsPrefix, uploadKey, uploadsPrefix } from "./storage-keys.ts";
export { isUploadRef, type Upload, uploadRef } from "./uploads.ts";
