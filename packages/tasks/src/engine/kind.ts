import type { TaskRow } from "../records.ts";

/** A file a kind's run produced, before it is stored. */
export interface ProducedFile {
  bytes: Uint8Array;
  contentType: string;
  /** File name extension, e.g. `png`. */
  ext: string;
  /** Set on segment-map masks. */
  index?: number;
  name?: string;
  /** Seconds of audio or video in the file, when it has a duration. */
  seconds?: number;
}

/** What a run came to: the files and the measured volume, or an expected failure. */
export type KindResult =
  | { ok: true; files: ProducedFile[]; volume: number }
  | { ok: false; code: string; message: string };

/**
 * What a kind of task (image, audio, video, a test kind) supplies to the engine: only
 * what differs between kinds. The engine does the rest: claim, lease, storage, pricing
 * by the stored snapshot, settlement and the announcement.
 */
export interface KindRunner {
  /**
   * Does the work. Expected failures (the upstream refused, a source is bad) are
   * values; a throw means infrastructure failed and the task is run again later.
   */
  run(task: TaskRow, signal: AbortSignal): Promise<KindResult>;
  /** The upstream lane the task runs in; each lane has its own concurrency limit. */
  lane?(task: TaskRow): string;
}
