import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { loadLua, type RedisClient, runLua } from "@gw/store";

const checkWindowsScript = loadLua(join(import.meta.dir, "lua", "checkWindows-3.lua"));

/** One sliding window of a subject: its full Redis key, and how many requests per how long. */
export interface WindowSpec {
  key: string;
  limit: number;
  windowMs: number;
}

export interface WindowsCheck {
  redis: RedisClient;
  /** Read and set only when `blockMs > 0`; must share the windows' hash tag. */
  blockKey: string;
  /** How long a refusal by the first window blocks the subject; 0 = no block. */
  blockMs: number;
  first: WindowSpec | null;
  second: WindowSpec | null;
  nowMs: number;
}

export interface WindowFigures {
  limit: number;
  /** Room left after this request. */
  remaining: number;
  /** Unix ms when the window next frees a slot. */
  resetMs: number;
}

/** Being limited is a result, not an exception. */
export interface WindowsResult {
  admitted: boolean;
  refusedBy: "block" | "first" | "second" | null;
  first: WindowFigures | null;
  second: WindowFigures | null;
  /** Unix ms from which the request would be admitted; 0 when it was. */
  retryAtMs: number;
}

const REFUSED_BY = [null, "block", "first", "second"] as const;

// Members must be unique across processes: a random process id and a counter are
// cheaper than a UUID per request and cannot collide within one process.
const PROCESS_ID = randomBytes(6).toString("hex");
let sequence = 0;

function assertWindow(spec: WindowSpec | null): void {
  if (spec && (!Number.isInteger(spec.limit) || spec.limit <= 0 || !(spec.windowMs > 0))) {
    throw new RangeError(`window ${spec.key}: limit and windowMs must be positive`);
  }
}

/**
 * Checks a request against up to two exact sliding windows of one subject and its
 * block, and records it in both only if both admit. One round trip (EVALSHA).
 */
export async function checkWindows(check: WindowsCheck): Promise<WindowsResult> {
  assertWindow(check.first);
  assertWindow(check.second);
  const { first, second, nowMs } = check;
  sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER;
  const member = `${PROCESS_ID}:${sequence}`;
  const reply = (await runLua(
    check.redis,
    checkWindowsScript,
    [
      check.blockKey,
      first?.key ?? `${check.blockKey}:none1`,
      second?.key ?? `${check.blockKey}:none2`,
    ],
    [
      nowMs,
      member,
      Math.max(0, Math.ceil(check.blockMs)),
      first?.limit ?? 0,
      first?.windowMs ?? 0,
      second?.limit ?? 0,
      second?.windowMs ?? 0,
    ],
  )) as [number, number, number, number, number, number, number];
  const [admitted, refusedBy, remaining1, reset1, remaining2, reset2, retryAtMs] = reply;
  return {
    admitted: admitted === 1,
    refusedBy: REFUSED_BY[refusedBy] ?? null,
    first: first ? { limit: first.limit, remaining: remaining1, resetMs: reset1 } : null,
    second: second ? { limit: second.limit, remaining: remaining2, resetMs: reset2 } : null,
    retryAtMs,
  };
}
