import type { RedisClient, Sql } from "@gw/store";
import { forgetCharges, journalCharge, type OwedCharge, recoverCharges } from "./charge-journal.ts";
import { DEFAULT_HOLD_TTL_MS, type LedgerContext } from "./context.ts";
import { type CreditInput, credit, creditWithin } from "./credit.ts";
import { findHold, hold, recheck, recordHold, recordHolds, reserve } from "./holds.ts";
import { prepay, refundWithin } from "./prepay.ts";
import { reconcile } from "./reconcile.ts";
import { post, postWithin, voidHold, voidWithin } from "./settle.ts";
import { type PostItem, type PostManyOptions, postMany, voidMany } from "./settle-many.ts";
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
    hold: (input: HoldInput) => hold(ctx, input),
    /**
     * The steps of `hold` for a caller that writes more in the same transaction (the
     * task the hold pays for): `reserve` admits in Redis; `recordHold(tx, input)` records
     * it in `tx` (throws `HoldExists` for a known id); after the commit
     * `reservation.confirm()`, whose refusal means the caller voids the hold; after a
     * rollback `reservation.release()`.
     */
    reserve: (input: HoldInput) => reserve(ctx, input),
    recordHold: (tx: Sql, input: HoldInput) => recordHold(ctx, tx, input),
    /** `recordHold` for many holds in one statement; all or none (or known ones kept). */
    recordHolds: (tx: Sql, inputs: HoldInput[], options?: { keepExisting?: boolean }) =>
      recordHolds(ctx, tx, inputs, options),
    /** Checks a committed hold against the wallet as it is now; a refusal means void it. */
    recheck: (input: HoldInput) => recheck(ctx, input),
    post: (holdId: string, amountQuota: bigint, details?: ChargeDetails) =>
      post(ctx, holdId, amountQuota, details),
    void: (holdId: string) => voidHold(ctx, holdId),
    /** Post inside a caller's transaction; run `afterCommit` once it committed. */
    postWithin: (tx: Sql, holdId: string, amountQuota: bigint, details?: ChargeDetails) =>
      postWithin(ctx, tx, holdId, amountQuota, details),
    voidWithin: (tx: Sql, holdId: string) => voidWithin(ctx, tx, holdId),
    /**
     * Posts many holds in the caller's transaction: each account's balance and spend and
     * each key's budget change once per batch. One answer per hold; `afterCommit` once.
     */
    postMany: (tx: Sql, items: PostItem[], options?: PostManyOptions) =>
      postMany(ctx, tx, items, options),
    voidMany: (tx: Sql, holdIds: string[]) => voidMany(ctx, tx, holdIds),
    /**
     * Reserve -> charge -> refund (audio): admits the reserve in Redis; the caller charges
     * it inside the transaction that records the task (`chargeWithin`), then `afterCommit`.
     */
    prepay: (input: HoldInput, details?: ChargeDetails) => prepay(ctx, input, details),
    /** Refunds reserve - actual once (everything for a failed generation). */
    refundWithin: (tx: Sql, holdId: string, actualQuota: bigint) =>
      refundWithin(ctx, tx, holdId, actualQuota),
    findHold: (holdId: string) => findHold(ctx, holdId),
    credit: (input: CreditInput) => credit(ctx, input),
    /** A credit inside the caller's transaction; `afterCommit` once it committed. */
    creditWithin: (tx: Sql, input: CreditInput) => creditWithin(ctx, tx, input),
    readWallet: (userId: bigint) => readWallet(ctx, userId),
    loadWallet: (userId: bigint) => loadWallet(ctx, userId),
    resyncWallet: (userId: bigint) => resyncWallet(ctx, userId),
    syncKeyBudget: (userId: bigint, keyId: bigint) => syncKeyBudget(ctx, userId, keyId),
    reconcile: (nowMs?: number) => reconcile(ctx, nowMs),
    /** Writes what an answer owes (Redis) before the answer goes out; see charge-journal.ts. */
    journalCharge: (charge: OwedCharge) => journalCharge(ctx.redis, ctx.prefix, charge),
    forgetCharges: (ids: string[]) => forgetCharges(ctx.redis, ctx.prefix, ids),
    /** Posts owed charges older than `olderThanMs` whose process died before posting them. */
    recoverCharges: (olderThanMs: number, nowMs?: number) =>
      recoverCharges(ctx, olderThanMs, nowMs),
  };
}

export type Ledger = ReturnType<typeof createLedger>;
