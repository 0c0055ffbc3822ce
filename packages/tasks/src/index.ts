export { requestHash } from "./hash.ts";
export { newTaskId, TASK_ID_PATTERN } from "./ids.ts";
export { CompletionWaiter, doneChannel, publishDone } from "./notify.ts";
export {
  ack,
  enqueue,
  ensureGroup,
  GROUP,
  type Job,
  readJobs,
  reclaimJobs,
  streamKey,
  touchJob,
} from "./queue.ts";
export * from "./records.ts";
export { isUploadRef, type Upload, uploadKey, uploadRef } from "./uploads.ts";
