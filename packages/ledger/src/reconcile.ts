import { runLua } from "@gw/store";
import type { LedgerContext } from "./context.ts";
import { readHolds } from "./holds.ts";
import { scripts, walletStateKeys } from "./scripts.ts";
import { postedHold, voidHold } from "./settle.ts";
import { applyPosts, closeHolds } from "./wallet-change.ts";

/** A Redis reservation with no Postgres row older than this was left by a crash. */
export const ORPHAN_AFTER_MS = 60_000;
/** A wallet behind Postgres at one version this long lost a change's update. */
export const BEHIND_FOR_MS = 5_000;
const BATCH = 500;

export interface ReconcileReport {
  expiredVoided: number;
  releasedInRedis: number;
  orphansDropped: number;
  /** Wallets dropped from Redis (loaded again on next use): they had lost a change. */
  walletsReloaded: number;
}

/**
 * Brings Redis back in line with Postgres after crashes: voids holds whose lifetime
 * ran out, releases Redis reservations of holds Postgres already posted or voided
 * (a process died between the commit and the Redis update), drops reservations that
 * never reached Postgres (a process died between admission and the insert), and drops
 * wallets that stayed behind Postgres's version of them for BEHIND_FOR_MS (a change's
 * update was lost), so their next use loads them again.
 */
export async function reconcile(ctx: LedgerContext, nowMs = Date.now()): Promise<ReconcileReport> {
  const report: ReconcileReport = {
    expiredVoided: 0,
    releasedInRedis: 0,
    orphansDropped: 0,
    walletsReloaded: 0,
  };
  const expired = await ctx.sql<{ id: string }[]>`
    select id from holds where state = 'pending' and expires_at < now()
    order by expires_at limit ${BATCH}`;
  for (const { id } of expired) {
    const result = await voidHold(ctx, id);
    if (result.ok && !result.existed) report.expiredVoided++;
  }
  await scanAll(ctx, `${ctx.prefix}:{u:*}:holds`, async (keys) => {
    for (const holdsKey of keys) await reconcileHolds(ctx, holdsKey, nowMs, report);
  });
  await scanAll(ctx, `${ctx.prefix}:{u:*}:wallet`, (keys) => healWallets(ctx, keys, nowMs, report));
  return report;
}

async function scanAll(
  ctx: LedgerContext,
  pattern: string,
  each: (keys: string[]) => Promise<void>,
): Promise<void> {
  if (!("scan" in ctx.redis)) return;
  let cursor = "0";
  do {
    const [next, keys] = await ctx.redis.scan(cursor, "MATCH", pattern, "COUNT", BATCH);
    cursor = next;
    if (keys.length > 0) await each(keys);
  } while (cursor !== "0");
}

const ownerOf = (key: string) => {
  const match = /\{u:(\d+)\}:(?:holds|wallet)$/.exec(key);
  return match ? BigInt(match[1]!) : null;
};

async function reconcileHolds(
  ctx: LedgerContext,
  holdsKey: string,
  nowMs: number,
  report: ReconcileReport,
): Promise<void> {
  const userId = ownerOf(holdsKey);
  if (userId === null) return;
  const entries = await ctx.redis.hgetall(holdsKey);
  const ids = Object.keys(entries);
  if (ids.length === 0) return;
  const rows = await readHolds(ctx.sql, ids);
  const byId = new Map(rows.map((row) => [row.id, row]));
  for (const id of ids) {
    const row = byId.get(id);
    if (row?.state === "posted") {
      // At the post's version: a wallet that already took the charge only closes the hold.
      await applyPosts(ctx, [postedHold(row)]);
      report.releasedInRedis++;
    } else if (row?.state === "voided") {
      if ((await closeHolds(ctx, userId, [id])) >= 0) report.releasedInRedis++;
    } else if (!row) {
      const createdMs = Number(entries[id]!.split("|")[2]);
      if (nowMs - createdMs > ORPHAN_AFTER_MS) {
        if ((await closeHolds(ctx, userId, [id])) >= 0) report.orphansDropped++;
      }
    }
  }
}

/** Wallets behind Postgres's version at one version for BEHIND_FOR_MS are dropped (healWallet-4.lua). */
async function healWallets(
  ctx: LedgerContext,
  walletKeyNames: string[],
  nowMs: number,
  report: ReconcileReport,
) {
  const owners = walletKeyNames.flatMap((key) => {
    const userId = ownerOf(key);
    return userId === null ? [] : [userId];
  });
  if (owners.length === 0) return;
  const rows = await ctx.sql<{ id: bigint; wallet_version: bigint }[]>`
    select id, wallet_version from users where id = any(${owners.map(String)}::bigint[])`;
  for (const row of rows) {
    const keys = walletStateKeys(ctx.prefix, row.id);
    const args = [row.wallet_version, nowMs, BEHIND_FOR_MS];
    const healed = await runLua(ctx.redis, scripts.healWallet, keys, args);
    if (healed === 2) report.walletsReloaded++;
  }
}
