import { runLua, type Sql } from "@gw/store";
import { type LedgerContext, MAX_HOLD_TTL_MS } from "./context.ts";
import { scripts, walletKeys } from "./scripts.ts";
import type { HoldInput, HoldRecord, HoldResult, HoldState } from "./types.ts";
import { loadWallet, syncKeyBudget } from "./wallet.ts";

export interface HoldRow {
  id: string;
  user_id: bigint;
  key_id: bigint | null;
  amount_quota: bigint;
  state: HoldState;
  posted_quota: bigint | null;
  expires_at: Date;
}

export function toHoldRecord(row: HoldRow): HoldRecord {
  return {
    id: row.id,
    userId: row.user_id,
    keyId: row.key_id,
    amountQuota: row.amount_quota,
    state: row.state,
    postedQuota: row.posted_quota,
    expiresAt: row.expires_at,
  };
}

const ADMITTED = 1;
const ALREADY_OPEN = 0;
const WALLET_MISSING = -1;
const INSUFFICIENT_FUNDS = -2;
const KEY_BUDGET_EXCEEDED = -3;
const KEY_MISSING = -4;

/** Reserves funds in Redis, loading the wallet or key from Postgres when Redis lacks them. */
async function admit(
  ctx: LedgerContext,
  input: HoldInput,
): Promise<[code: number, available: number]> {
  const keys = walletKeys(ctx.prefix, input.userId);
  const args = [input.holdId, input.amountQuota, input.keyId ?? 0n, Date.now()];
  // Two reloads at most: the wallet, then a key created after the wallet was loaded.
  for (let attempt = 0; attempt < 3; attempt++) {
    const [code, available] = (await runLua(ctx.redis, scripts.admitHold, keys, args)) as [
      number,
      number,
    ];
    if (code === WALLET_MISSING) {
      if (!(await loadWallet(ctx, input.userId))) return [WALLET_MISSING, 0];
    } else if (code === KEY_MISSING) {
      if (!(await syncKeyBudget(ctx, input.userId, input.keyId!))) return [KEY_MISSING, 0];
    } else {
      return [code, available];
    }
  }
  throw new Error(`hold ${input.holdId}: wallet of user ${input.userId} keeps missing in Redis`);
}

async function findHold(ctx: LedgerContext, holdId: string): Promise<HoldRecord | null> {
  const [row] = await ctx.sql<HoldRow[]>`select * from holds where id = ${holdId}`;
  return row ? toHoldRecord(row) : null;
}

/**
 * Opens a hold: Redis admits it atomically against the wallet and the key budget,
 * then Postgres records it durably. If Postgres fails, the Redis reservation is
 * released again before the error is thrown, so a failed hold leaves nothing behind.
 * `record` writes what the hold pays for (a task row) in the same transaction as the
 * hold, so there is never a hold without its task or a task without its hold; if it
 * throws, nothing is kept and the error reaches the caller.
 */
export async function hold(
  ctx: LedgerContext,
  input: HoldInput,
  record?: (tx: Sql) => Promise<void>,
): Promise<HoldResult> {
  if (input.amountQuota <= 0n) throw new RangeError("a hold must be positive");
  const ttlMs = Math.min(input.ttlMs ?? ctx.holdTtlMs, MAX_HOLD_TTL_MS);
  const [code, available] = await admit(ctx, input);
  if (code === WALLET_MISSING) return { ok: false, code: "user_not_found" };
  if (code === KEY_MISSING) return { ok: false, code: "key_not_found" };
  if (code === INSUFFICIENT_FUNDS) {
    return { ok: false, code: "insufficient_funds", availableQuota: BigInt(available) };
  }
  if (code === KEY_BUDGET_EXCEEDED) {
    return {
      ok: false,
      code: "key_budget_exceeded",
      availableQuota: BigInt(Math.max(0, available)),
    };
  }
  if (code === ALREADY_OPEN) return existingHold(ctx, input);
  if (code !== ADMITTED) throw new Error(`admitHold answered unknown code ${code}`);

  const keys = walletKeys(ctx.prefix, input.userId);
  let inserted: HoldRow[];
  try {
    const insert = async (sql: Sql) => {
      const rows = await sql<HoldRow[]>`
        insert into holds (id, user_id, key_id, amount_quota, expires_at)
        values (${input.holdId}, ${input.userId}, ${input.keyId}, ${input.amountQuota},
                now() + ${ttlMs} * interval '1 millisecond')
        on conflict (id) do nothing
        returning *`;
      if (rows.length > 0 && record) await record(sql);
      return rows;
    };
    inserted = record
      ? await ctx.sql.begin((tx) => insert(tx as unknown as Sql))
      : await insert(ctx.sql);
  } catch (error) {
    await runLua(ctx.redis, scripts.resolveHold, keys, [input.holdId, 0]);
    throw error;
  }
  if (inserted.length === 0) {
    // The id was used before and that hold is already resolved: undo this reservation.
    await runLua(ctx.redis, scripts.resolveHold, keys, [input.holdId, 0]);
    return existingHold(ctx, input);
  }
  await runLua(ctx.redis, scripts.confirmHold, keys, [
    input.holdId,
    input.amountQuota,
    input.keyId ?? 0n,
    Date.now(),
  ]);
  return { ok: true, existed: false, hold: toHoldRecord(inserted[0]!) };
}

/** A repeated hold id answers with the hold it names, if it is the same hold. */
async function existingHold(ctx: LedgerContext, input: HoldInput): Promise<HoldResult> {
  const existing = await findHold(ctx, input.holdId);
  if (
    !existing ||
    existing.userId !== input.userId ||
    existing.keyId !== input.keyId ||
    existing.amountQuota !== input.amountQuota
  ) {
    return { ok: false, code: "hold_conflict" };
  }
  return { ok: true, existed: true, hold: existing };
}

export { findHold };
