import type { RedisClient } from "@gw/store";
import type { TaskRow } from "../records.ts";

/** The channel workers announce finished tasks on; every api process listens. */
export function doneChannel(prefix: string): string {
  return `${prefix}:tasks:done`;
}

/** What changes when a task finishes: with the submitted row, all an answer needs. */
export type Finished = Pick<
  TaskRow,
  "id" | "status" | "result" | "billing" | "charged_quota" | "fail_code" | "fail_reason"
> & {
  finished_at: Date;
  started_at: Date | null;
  /**
   * The result files as base64, in order, when the client asked for `b64_json` and they
   * are small (`INLINE_MAX_BYTES` in all): the answer then needs no read of storage.
   */
  inline?: string[];
};

/** Results up to this size in all travel inside the announcement. */
export const INLINE_MAX_BYTES = 256 * 1024;

/** Announces finished tasks, one message each (pipelined); the message carries the outcome. */
export async function announce(redis: RedisClient, prefix: string, done: Finished[]) {
  const channel = doneChannel(prefix);
  await Promise.all(
    done.map((task) =>
      redis.publish(
        channel,
        JSON.stringify({
          ...task,
          charged_quota: task.charged_quota === null ? null : String(task.charged_quota),
        }),
      ),
    ),
  );
}

/** A message of the channel: the outcome, or just a task id (older workers, tests). */
export function parseAnnouncement(message: string): { id: string; finished: Finished | null } {
  if (!message.startsWith("{")) return { id: message, finished: null };
  try {
    const raw = JSON.parse(message) as Finished & { charged_quota: string | null };
    return {
      id: raw.id,
      finished: {
        ...raw,
        charged_quota: raw.charged_quota === null ? null : BigInt(raw.charged_quota),
        finished_at: new Date(raw.finished_at),
        started_at: raw.started_at ? new Date(raw.started_at) : null,
      },
    };
  } catch {
    return { id: "", finished: null };
  }
}

/** The submitted row with the announced outcome applied. */
export function applyFinished(row: TaskRow, finished: Finished): TaskRow {
  const { inline: _inline, ...changed } = finished;
  return { ...row, ...changed, lease_owner: null, lease_until: null };
}
