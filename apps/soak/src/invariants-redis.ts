import type { RedisClient, Sql } from "@gw/store";
import { type Check, verdict } from "./check.ts";

interface UserRow {
  id: bigint;
  balance_quota: bigint;
}

interface KeyRow {
  id: bigint;
  user_id: bigint;
  quota_limit: bigint | null;
  used_quota: bigint;
}

export interface RedisComparison {
  /** Wallets found in Redis (a flushed one not used since is rebuilt on its next call). */
  loaded: number;
  mismatches: string[];
  /** Wallets still holding something: the reconciler's work, which the drain waits for. */
  holding: number;
  /** Text charges still owed in the journal. */
  owed: number;
}

/**
 * Every wallet Redis holds against Postgres: balance, nothing held, no open hold, and per
 * key its limit and used budget; and the journal of owed text charges empty.
 */
export async function compareRedis(
  sql: Sql,
  redis: RedisClient,
  prefix: string,
): Promise<RedisComparison> {
  const users = await sql<UserRow[]>`select id, balance_quota from users order by id`;
  const keys = await sql<KeyRow[]>`select id, user_id, quota_limit, used_quota from api_keys`;
  const mismatches: string[] = [];
  let loaded = 0;
  let holding = 0;
  for (const user of users) {
    const tag = `${prefix}:{u:${user.id}}`;
    const wallet = await redis.hgetall(`${tag}:wallet`);
    const open = await redis.hlen(`${tag}:holds`);
    if (Object.keys(wallet).length === 0) {
      if (open > 0) {
        holding++;
        mismatches.push(`user ${user.id}: no wallet but ${open} open hold(s)`);
      }
      continue;
    }
    loaded++;
    const problems: string[] = [];
    if (wallet.balance !== String(user.balance_quota))
      problems.push(`balance ${wallet.balance} ≠ ${user.balance_quota}`);
    if (wallet.held !== "0") problems.push(`held ${wallet.held}`);
    if (open > 0) problems.push(`${open} open hold(s) in Redis`);
    let held = wallet.held !== "0" || open > 0;
    for (const key of keys.filter((each) => each.user_id === user.id)) {
      const limit = wallet[`k:${key.id}:limit`];
      if (limit === undefined) continue;
      if (limit !== String(key.quota_limit ?? -1n))
        problems.push(`key ${key.id} limit ${limit} ≠ ${key.quota_limit}`);
      const used = wallet[`k:${key.id}:used`];
      if (used !== String(key.used_quota))
        problems.push(`key ${key.id} used ${used} ≠ ${key.used_quota}`);
      const keyHeld = wallet[`k:${key.id}:held`] ?? "0";
      if (keyHeld !== "0") problems.push(`key ${key.id} held ${keyHeld}`);
      held ||= keyHeld !== "0";
    }
    if (held) holding++;
    if (problems.length > 0) mismatches.push(`user ${user.id}: ${problems.join(", ")}`);
  }
  const owed = await redis.xlen(`${prefix}:{charges}:owed`);
  return { loaded, mismatches, holding, owed };
}

export function redisCheck(comparison: RedisComparison): Check {
  const violations = [...comparison.mismatches];
  if (comparison.owed > 0)
    violations.push(`${comparison.owed} text charge(s) still owed in the journal`);
  return verdict(
    `Redis wallets = Postgres after reconciliation (${comparison.loaded} loaded)`,
    comparison.loaded,
    violations,
  );
}
