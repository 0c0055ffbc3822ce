import type { RedisClient, Sql } from "@gw/store";
import { DEFAULT_HOLD_TTL_MS, type LedgerContext } from "./context.ts";
import { type CreditInput, credit } from "./credit.ts";
import { findHold, hold } from "./holds.ts";
import { reconcile } from "./reconcile.ts";
import { post, postWithin, voidHold, voidWithin } from "./settle.ts";
import type { ChargeDetails, HoldInput } from "./types.ts";
import { loadWallet, readWallet, resyncWallet, syncKeyBudget } from "./wallet.ts";

export interface LedgerOptions {
  sql: Sql;
  redis: RedisClient;
  prefix?: string;
  holdTtlMs?: number;
}

/** The money API: holds that are posted or voided at most once, credits, wallet views. */
export function createLedger(options: LedgerOptions) {
  const ctx: LedgerContext = {
    sql: options.sql,
    redis: options.redis,
    prefix: options.prefix ?? "gw",
    holdTtlMs: options.holdTtlMs ?? DEFAULT_HOLD_TTL_MS,
  };
  return {
    hold: (input: HoldInput, record?: (tx: Sql) => Promise<void>) => hold(ctx, input, record),
    post: (holdId: string, amountQuota: bigint, details?: ChargeDetails) =>
      post(ctx, holdId, amountQuota, details),
    void: (holdId: string) => voidHold(ctx, holdId),
    /** Post inside a caller's transaction; run `afterCommit` once it committed. */
    postWithin: (tx: Sql, holdId: string, amountQuota: bigint, details?: ChargeDetails) =>
      postWithin(ctx, tx, holdId, amountQuota, details),
    voidWithin: (tx: Sql, holdId: string) => voidWithin(ctx, tx, holdId),
    findHold: (holdId: string) => findHold(ctx, holdId),
    credit: (input: CreditInput) => credit(ctx, input),
    readWallet: (userId: bigint) => readWallet(ctx, userId),
    loadWallet: (userId: bigint) => loadWallet(ctx, userId),
    resyncWallet: (userId: bigint) => resyncWallet(ctx, userId),
    syncKeyBudget: (userId: bigint, keyId: bigint) => syncKeyBudget(ctx, userId, keyId),
    reconcile: (nowMs?: number) => reconcile(ctx, nowMs),
  };
}

export type Ledger = ReturnType<typeof createLedger>;
