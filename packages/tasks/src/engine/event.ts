import type { TaskRow } from "../records.ts";

const unix = (date: Date | null) => (date ? Math.floor(date.getTime() / 1000) : null);

/**
 * The body of a task's webhook (Standard Webhooks' `{type, timestamp, data}`): the task as
 * it ended, with its billing, its error, and per file its content type and duration. Files
 * are fetched with the task's own GET (their links are signed per read), never from here.
 */
export function taskEvent(task: TaskRow): Record<string, unknown> {
  const completed = task.status === "completed";
  return {
    type: completed ? "task.completed" : "task.failed",
    timestamp: (task.finished_at ?? new Date()).toISOString(),
    data: {
      id: task.id,
      object: `${task.kind}.task`,
      kind: task.kind,
      status: task.status,
      model: task.model,
      operation: task.operation,
      created_at: unix(task.created_at),
      finished_at: unix(task.finished_at),
      files: completed
        ? (task.result?.files ?? []).map((file, index) => ({
            index,
            content_type: file.content_type,
            ...(file.seconds === undefined ? {} : { duration: file.seconds }),
          }))
        : [],
      billing: completed ? task.billing : null,
      error: completed ? null : { code: task.fail_code, message: task.fail_reason },
    },
  };
}
