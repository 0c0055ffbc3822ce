import type { AudioTask } from "@gw/schemas";
import { signLink } from "@gw/storage";
import { priceSnapshot, toBilling } from "@gw/tariffs";
import type { TaskRow } from "@gw/tasks";
import type { AppContext } from "../../context.ts";
import { failureError } from "../images/present.ts";
import { PROGRESS, unixSeconds } from "../task-view.ts";

/** Spec 2.14: the task in any state; tracks once completed, the error once failed. */
export function audioTask(ctx: AppContext, task: TaskRow, base: string): AudioTask {
  const completed = task.status === "completed";
  const expires = task.finished_at ? unixSeconds(task.finished_at) + ctx.config.linkTtlSeconds : 0;
  const tracks = completed
    ? (task.result?.files ?? []).map((file, index) => ({
        id: `${task.id}:${index}`,
        url: `${base}${signLink(ctx.config.linkSecret, file.key, expires)}`,
        duration: file.seconds ?? 0,
        content_type: file.content_type,
        ...(file.name ? { name: file.name } : {}),
      }))
    : [];
  const failed =
    task.status === "failed" ? failureError(task, "Audio task", "The reserve was refunded.") : null;
  const billing =
    task.status === "failed"
      ? null
      : completed && task.billing
        ? (task.billing as unknown as AudioTask["billing"])
        : (toBilling(priceSnapshot(task.price)) as AudioTask["billing"]);
  return {
    object: "audio.generation",
    id: task.id,
    task_id: task.id,
    model: task.model,
    operation: task.operation,
    status: task.status,
    progress: PROGRESS[task.status],
    created_at: unixSeconds(task.created_at),
    finished_at: task.finished_at ? unixSeconds(task.finished_at) : null,
    tracks,
    error: failed ? { code: failed.code, message: failed.message } : null,
    billing,
  };
}
