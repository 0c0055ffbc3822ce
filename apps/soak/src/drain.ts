import type { RedisClient, Sql } from "@gw/store";
import { compareRedis } from "./invariants-redis.ts";

export interface DrainState {
  activeTasks: number;
  pendingHolds: number;
  /** Wallets in Redis still holding funds or open holds. */
  redisHolding: number;
  /** Wallets whose figures differ from Postgres (the reconciler reloads one behind it). */
  redisMismatches: number;
  owedCharges: number;
  /** Jobs in the streams not yet acknowledged by a worker. */
  pendingJobs: number;
}

export interface DrainResult {
  converged: boolean;
  ms: number;
  state: DrainState;
}

async function pendingJobs(redis: RedisClient, prefix: string): Promise<number> {
  let total = 0;
  for (let partition = 0; partition < 4; partition++) {
    const stream = `${prefix}:{jobs:${partition}}`;
    try {
      const summary = (await redis.xpending(stream, "workers")) as [number, ...unknown[]];
      total += Number(summary[0] ?? 0);
    } catch {
      // No stream or no group (after a flush, before a worker recreated it): nothing pending.
    }
  }
  return total;
}

async function state(sql: Sql, redis: RedisClient, prefix: string): Promise<DrainState> {
  const [row] = await sql<{ active: number; pending: number }[]>`
    select (select count(*)::int from tasks where status in ('queued', 'processing')) as active,
           (select count(*)::int from holds where state = 'pending') as pending`;
  const redisState = await compareRedis(sql, redis, prefix);
  return {
    activeTasks: row!.active,
    pendingHolds: row!.pending,
    redisHolding: redisState.holding,
    redisMismatches: redisState.mismatches.length,
    owedCharges: redisState.owed,
    pendingJobs: await pendingJobs(redis, prefix),
  };
}

const quiet = (s: DrainState) =>
  s.activeTasks === 0 &&
  s.pendingHolds === 0 &&
  s.redisHolding === 0 &&
  s.redisMismatches === 0 &&
  s.owedCharges === 0 &&
  s.pendingJobs === 0;

/**
 * Waits until the deployment is at rest: no task queued or running, no hold pending, no
 * job unacknowledged, no text charge owed, and nothing held in Redis (the reconciler
 * drops what killed processes left, after its one-minute orphan window), and every Redis
 * wallet in step with Postgres (a wallet that lost a change's update, its process
 * killed between the commit and Redis, is reloaded by the reconciler's second pass).
 * Quiet must hold on two looks `settleMs` apart; gives up after `timeoutMs`.
 */
export async function drain(options: {
  sql: Sql;
  redis: RedisClient;
  prefix: string;
  timeoutMs: number;
  settleMs: number;
  onState?: (state: DrainState, elapsedMs: number) => void;
}): Promise<DrainResult> {
  const began = Date.now();
  let last = await state(options.sql, options.redis, options.prefix);
  let lastReport = 0;
  for (;;) {
    const elapsed = Date.now() - began;
    if (quiet(last)) {
      await Bun.sleep(options.settleMs);
      last = await state(options.sql, options.redis, options.prefix);
      if (quiet(last)) return { converged: true, ms: Date.now() - began, state: last };
    }
    if (elapsed > options.timeoutMs) return { converged: false, ms: elapsed, state: last };
    if (elapsed - lastReport >= 10_000) {
      lastReport = elapsed;
      options.onState?.(last, elapsed);
    }
    await Bun.sleep(1_000);
    last = await state(options.sql, options.redis, options.prefix);
  }
}
