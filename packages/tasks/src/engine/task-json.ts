import type { TaskRow } from "../records.ts";

/**
 * A task row as text for the job stream, so the first run of a task needs no read of
 * Postgres. Bigints travel as strings and dates as ISO text; decoding converts the
 * known fields back (a reviver function would cost more than the parse itself).
 */
export function encodeTask(row: TaskRow): string {
  return JSON.stringify({
    ...row,
    user_id: row.user_id.toString(),
    key_id: row.key_id === null ? null : row.key_id.toString(),
    hold_quota: row.hold_quota.toString(),
    charged_quota: row.charged_quota === null ? null : row.charged_quota.toString(),
  });
}

type Encoded = Omit<
  TaskRow,
  | "user_id"
  | "key_id"
  | "hold_quota"
  | "charged_quota"
  | "created_at"
  | "started_at"
  | "finished_at"
  | "lease_until"
> & {
  user_id: string;
  key_id: string | null;
  hold_quota: string;
  charged_quota: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  lease_until: string | null;
};

const date = (text: string | null) => (text === null ? null : new Date(text));

export function decodeTask(text: string): TaskRow | null {
  try {
    const raw = JSON.parse(text) as Encoded;
    return {
      ...raw,
      user_id: BigInt(raw.user_id),
      key_id: raw.key_id === null ? null : BigInt(raw.key_id),
      hold_quota: BigInt(raw.hold_quota),
      charged_quota: raw.charged_quota === null ? null : BigInt(raw.charged_quota),
      created_at: new Date(raw.created_at),
      started_at: date(raw.started_at),
      finished_at: date(raw.finished_at),
      lease_until: date(raw.lease_until),
    };
  } catch {
    return null;
  }
}
