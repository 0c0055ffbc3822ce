import { createHash } from "node:crypto";
import type { TaskRow } from "@gw/tasks";
import type { AppContext } from "../../context.ts";
import { audioTask } from "../audio/present.ts";
import { imageTask } from "../images/present.ts";
import { PROGRESS } from "../task-view.ts";

/** Spec 2.16: the music-task reader's `data`: the task's state, plus its tracks once done. */
export function musicData(ctx: AppContext, task: TaskRow, base: string) {
  const view = audioTask(ctx, task, base);
  return {
    task_id: task.id,
    status: task.status,
    progress: PROGRESS[task.status],
    model: task.model,
    operation: task.operation,
    tracks: view.tracks,
    fail_reason: task.status === "failed" ? (task.fail_reason ?? "") : null,
  };
}

/** Spec 2.16: the image-task reader object: `imageUrl` (the first image), `progress`, `failReason`. */
export async function imageCompatTask(ctx: AppContext, task: TaskRow, base: string) {
  const view = await imageTask(ctx, task, base);
  const urls = (view.data ?? []).flatMap((item) => (item.url ? [item.url] : []));
  return {
    id: task.id,
    status: task.status,
    progress: `${PROGRESS[task.status]}%`,
    imageUrl: urls[0] ?? null,
    imageUrls: urls,
    failReason: task.status === "failed" ? (task.fail_reason ?? "") : "",
    model: task.model,
    operation: task.operation,
    prompt: task.prompt ?? "",
    submitTime: task.created_at.getTime(),
    finishTime: task.finished_at ? task.finished_at.getTime() : null,
  };
}

/**
 * The seed of an image task: the one the call set (`input.seed`), else one derived from
 * the task id, stable across reads, since the offline and OpenAI-style providers report none.
 */
export function seedOf(task: TaskRow): number {
  const set = task.input.seed;
  if (typeof set === "number" && Number.isSafeInteger(set)) return set;
  return createHash("sha256").update(task.id).digest().readUInt32BE(0);
}
