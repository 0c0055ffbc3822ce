import type { LedgerContext } from "./context.ts";
import { releaseInRedis, voidHold } from "./settle.ts";
import type { HoldState } from "./types.ts";

/** A Redis reservation with no Postgres row older than this was left by a crash. */
export const ORPHAN_AFTER_MS = 60_000;
const BATCH = 500;

export interface ReconcileReport {
  expiredVoided: number;
  releasedInRedis: number;
  orphansDropped: number;
}

/**
 * Brings Redis back in line with Postgres after crashes: voids holds whose lifetime
 * ran out, releases Redis reservations of holds Postgres already posted or voided
 * (a process died between the commit and the Redis update), and drops reservations
 * that never reached Postgres (a process died between admission and the insert).
 */
export async function reconcile(ctx: LedgerContext, nowMs = Date.now()): Promise<ReconcileReport> {
  const report: ReconcileReport = { expiredVoided: 0, releasedInRedis: 0, orphansDropped: 0 };
  const expired = await ctx.sql<{ id: string }[]>`
    select id from holds where state = 'pending' and expires_at < now()
    order by expires_at limit ${BATCH}`;
  for (const { id } of expired) {
    const result = await voidHold(ctx, id);
    if (result.ok && !result.existed) report.expiredVoided++;
  }
  let cursor = "0";
  do {
    const [next, holdKeys] = await scanHoldKeys(ctx, cursor);
    cursor = next;
    for (const holdsKey of holdKeys) await reconcileWallet(ctx, holdsKey, nowMs, report);
  } while (cursor !== "0");
  return report;
}

async function scanHoldKeys(ctx: LedgerContext, cursor: string): Promise<[string, string[]]> {
  if (!("scan" in ctx.redis)) return ["0", []];
  return ctx.redis.scan(cursor, "MATCH", `${ctx.prefix}:{u:*}:holds`, "COUNT", BATCH);
}

async function reconcileWallet(
  ctx: LedgerContext,
  holdsKey: string,
  nowMs: number,
  report: ReconcileReport,
): Promise<void> {
  const match = /\{u:(\d+)\}:holds$/.exec(holdsKey);
  if (!match) return;
  const userId = BigInt(match[1]!);
  const entries = await ctx.redis.hgetall(holdsKey);
  const ids = Object.keys(entries);
  if (ids.length === 0) return;
  const rows = await ctx.sql<{ id: string; state: HoldState; posted_quota: bigint | null }[]>`
    select id, state, posted_quota from holds where id = any(${ids})`;
  const byId = new Map(rows.map((row) => [row.id, row]));
  for (const id of ids) {
    const row = byId.get(id);
    const hold = { id, userId };
    if (row && row.state !== "pending") {
      if ((await releaseInRedis(ctx, hold, row.posted_quota ?? 0n)) === 1) report.releasedInRedis++;
    } else if (!row) {
      const createdMs = Number(entries[id]!.split("|")[2]);
      if (nowMs - createdMs > ORPHAN_AFTER_MS) {
        if ((await releaseInRedis(ctx, hold, 0n)) === 1) report.orphansDropped++;
      }
    }
  }
}
