import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { loadLua, type RedisClient, runLua } from "@gw/store";

const checkWindowScript = loadLua(join(import.meta.dir, "lua", "checkWindow-1.lua"));

/** Being limited is a result, not an exception. */
export interface WindowResult {
  success: boolean;
  limit: number;
  remaining: number;
  /** Unix milliseconds when one more request would be admitted. */
  resetMs: number;
}

export interface WindowCheck {
  redis: RedisClient;
  /** The full Redis key, hash-tagged by the caller, e.g. `gw:rl:{ip:1.2.3.4}:models`. */
  key: string;
  limit: number;
  windowMs: number;
  nowMs?: number;
}

/**
 * Checks and records one request against an exact sliding window: one entry per
 * admitted request, so the count has error bound 0 (see checkWindow-1.lua). The
 * limiter's groups use checkWindows-3.lua, the same log over a subject's windows.
 */
export async function checkWindow(check: WindowCheck): Promise<WindowResult> {
  if (!(check.limit > 0) || !(check.windowMs > 0))
    throw new RangeError("limit and windowMs must be positive");
  const nowMs = check.nowMs ?? Date.now();
  const [admitted, remaining, resetMs] = (await runLua(
    check.redis,
    checkWindowScript,
    [check.key],
    [nowMs, check.windowMs, check.limit, `${nowMs}-${randomUUID()}`],
  )) as [number, number, number];
  return { success: admitted === 1, limit: check.limit, remaining, resetMs };
}
