import type { Video, VideoGeneration } from "@gw/schemas";
import { signLink } from "@gw/storage";
import { priceSnapshot, toBilling } from "@gw/tariffs";
import type { TaskRow } from "@gw/tasks";
import type { AppContext } from "../../context.ts";
import { failureError } from "../images/present.ts";
import { PROGRESS, unixSeconds } from "../task-view.ts";
import { frameSizeOf } from "./size.ts";

const STATUS = {
  queued: "queued",
  processing: "in_progress",
  completed: "completed",
  failed: "failed",
} as const;

/** When a finished task's file stops being served (its links' lifetime). */
export function expiresAt(ctx: AppContext, task: TaskRow): number | null {
  return task.finished_at ? unixSeconds(task.finished_at) + ctx.config.linkTtlSeconds : null;
}

function billingOf(task: TaskRow): Video["metadata"]["billing"] {
  if (task.status === "failed") return null;
  if (task.status === "completed" && task.billing)
    return task.billing as unknown as Video["metadata"]["billing"];
  return toBilling(priceSnapshot(task.price)) as Video["metadata"]["billing"];
}

/** The video object of OpenAI's videos API, billing in `metadata` (spec 2.4). */
export function videoObject(ctx: AppContext, task: TaskRow): Video {
  const failed = task.status === "failed" ? failureError(task, "Video task") : null;
  const { width, height } = frameSizeOf(task.input);
  return {
    id: task.id,
    object: "video",
    model: task.model,
    status: STATUS[task.status],
    progress: PROGRESS[task.status],
    created_at: unixSeconds(task.created_at),
    completed_at:
      task.status === "completed" && task.finished_at ? unixSeconds(task.finished_at) : null,
    expires_at: task.status === "completed" ? expiresAt(ctx, task) : null,
    prompt: task.prompt,
    seconds: String(task.input.duration ?? ""),
    size: `${width}x${height}`,
    remixed_from_video_id: null,
    error: failed ? { code: failed.code, message: failed.message } : null,
    metadata: { billing: billingOf(task) },
  };
}

/** GET /v1/video/generations/{id}: the envelope with a signed link once completed. */
export function videoGeneration(ctx: AppContext, task: TaskRow, base: string): VideoGeneration {
  const file = task.status === "completed" ? task.result?.files[0] : undefined;
  const expires = expiresAt(ctx, task);
  return {
    code: "success",
    message: task.status === "failed" ? (task.fail_reason ?? "failed") : "",
    data: {
      task_id: task.id,
      status: STATUS[task.status],
      progress: PROGRESS[task.status],
      result_url:
        file && expires ? `${base}${signLink(ctx.config.linkSecret, file.key, expires)}` : null,
    },
  };
}
