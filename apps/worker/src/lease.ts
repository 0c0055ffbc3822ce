import type { RedisClient } from "@gw/store";

/**
 * A Redis lease so that one worker of many runs a periodic job at a time. It expires
 * by itself, so a worker that dies holding it blocks the job for one period at most.
 */
export async function tryLease(
  redis: RedisClient,
  key: string,
  owner: string,
  ttlMs: number,
): Promise<boolean> {
  return (await redis.set(key, owner, "PX", ttlMs, "NX")) === "OK";
}
