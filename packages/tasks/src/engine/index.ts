export {
  announce,
  applyFinished,
  doneChannel,
  type Finished,
  INLINE_MAX_BYTES,
  parseAnnouncement,
} from "./announce.ts";
export { type Batcher, type BatchStats, createBatcher, type Outcome } from "./batcher.ts";
export { type Consumer, type ConsumerOptions, startConsumer } from "./consume.ts";
export { taskEvent } from "./event.ts";
export type { KindResult, KindRunner, ProducedFile } from "./kind.ts";
export { Lanes } from "./lanes.ts";
export { type RunDeps, type RunEnd, type RunObserver, type RunOutcome, runJob } from "./run.ts";
export { createSettler, type Settled, type Settlement, type Settler } from "./settle.ts";
export {
  createSubmitter,
  type PaidCall,
  type SubmitDeps,
  SubmitRefused,
  type Submitter,
} from "./submit.ts";
export { deleteExpiredFiles, requeueStranded } from "./sweep.ts";
export { decodeTask, encodeTask } from "./task-json.ts";
