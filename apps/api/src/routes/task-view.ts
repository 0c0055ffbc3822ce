import type { Principal } from "@gw/accounts";
import {
  AUDIO_TASK_ID_PATTERN,
  findOwnTask,
  TASK_ID_PATTERN,
  type TaskRow,
  type TaskStatus,
  VIDEO_TASK_ID_PATTERN,
} from "@gw/tasks";
import type { AppContext } from "../context.ts";
import { ApiError } from "../errors.ts";

/** Unix seconds, as every task object shows times. */
export const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** A task's progress in percent by its state: the engine reports no finer steps. */
export const PROGRESS: Record<TaskStatus, number> = {
  queued: 0,
  processing: 50,
  completed: 100,
  failed: 100,
};

const PATTERNS = {
  image: TASK_ID_PATTERN,
  audio: AUDIO_TASK_ID_PATTERN,
  video: VIDEO_TASK_ID_PATTERN,
};

/**
 * One of the caller's tasks of a kind. An id of another shape is never looked up, and
 * another account's task (or another kind's) answers exactly like a missing one.
 */
export async function ownTask(
  ctx: AppContext,
  principal: Principal,
  id: string,
  kind: keyof typeof PATTERNS,
): Promise<TaskRow> {
  const task = PATTERNS[kind].test(id) ? await findOwnTask(ctx.sql, id, principal.userId) : null;
  if (task?.kind !== kind) throw new ApiError("not_found", `No ${kind} task ${id.slice(0, 100)}`);
  return task;
}
