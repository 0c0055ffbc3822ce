import type { Sql } from "@gw/store";
import type { LedgerContext } from "./context.ts";
import { findHold, type HoldRow, readHolds } from "./holds.ts";
import type { ChargeDetails, PostResult, VoidResult } from "./types.ts";
import { applyPosts, closeHolds, type PostedHold } from "./wallet-change.ts";

/**
 * Posts a hold: charges `amountQuota` (at most what was held) exactly once. One
 * statement moves the hold to `posted`, writes the charge entry, and updates the
 * balance, the account spend and the key's used budget, so the account row is locked
 * for one round trip only. The update only matches a pending hold, so of concurrent
 * posts one wins and the others find it posted and answer `existed`; the entry's unique
 * business key `<holdId>:charge` guards the same rule a second time.
 */
export async function post(
  ctx: LedgerContext,
  holdId: string,
  amountQuota: bigint,
  details: ChargeDetails = {},
): Promise<PostResult> {
  const { result, afterCommit } = await ctx.sql.begin((tx) =>
    postWithin(ctx, tx as unknown as Sql, holdId, amountQuota, details),
  );
  await afterCommit();
  return result;
}

/** A ledger change made inside a caller's transaction, and what to do once it commits. */
export interface Staged<T> {
  result: T;
  /** Applies the change to Redis; call it only after the transaction committed. */
  afterCommit: () => Promise<void>;
}

const nothing = async () => {};

/**
 * `post` inside the caller's transaction (`tx`), so a task's completion and its charge
 * commit together. The post bumps the owner's wallet version and its charge entry keeps
 * it (`ledger_entries.wallet_version`): Redis learns of the charge through `afterCommit`, at that
 * version, so a rebuilt wallet never takes it twice; if the process dies before that,
 * the reconciler closes the reservation and mends the balance from what Postgres says.
 */
export async function postWithin(
  ctx: LedgerContext,
  tx: Sql,
  holdId: string,
  amountQuota: bigint,
  details: ChargeDetails = {},
): Promise<Staged<PostResult>> {
  if (amountQuota < 0n) throw new RangeError("a posted amount cannot be negative");
  const [posted] = await tx<(HoldRow & { entry_id: bigint; wallet_version: bigint })[]>`
    with hold as (
      update holds set state = 'posted', posted_quota = ${amountQuota}, resolved_at = now()
      where id = ${holdId} and state = 'pending' and amount_quota >= ${amountQuota}
      returning *
    ), account as (
      update users set balance_quota = balance_quota - ${amountQuota},
                       spent_quota = spent_quota + ${amountQuota},
                       wallet_version = wallet_version + 1
      where id = (select user_id from hold)
      returning wallet_version
    ), entry as (
      insert into ledger_entries (user_id, key_id, hold_id, kind, delta_quota, business_key,
        request_id, model, prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens,
        is_stream, other, wallet_version)
      select user_id, key_id, id, 'charge', ${-amountQuota}, ${`${holdId}:charge`},
        ${details.requestId ?? holdId}, ${details.model ?? null}, ${details.promptTokens ?? 0},
        ${details.completionTokens ?? 0}, ${details.cacheReadTokens ?? 0}, ${details.cacheWriteTokens ?? 0},
        ${details.isStream ?? false}, ${details.other ? tx.json(details.other as never) : null},
        account.wallet_version
      from hold, account
      returning id
    ), key as (
      update api_keys set used_quota = used_quota + ${amountQuota}
      where id = (select key_id from hold)
    )
    select hold.*, entry.id as entry_id, account.wallet_version from hold, entry, account`;
  if (posted) {
    const version = posted.wallet_version;
    const change = { ...postedHold(posted), postedQuota: amountQuota, version };
    return {
      result: { ok: true, existed: false, postedQuota: amountQuota, entryId: posted.entry_id },
      afterCommit: () => applyPosts(ctx, [change]),
    };
  }
  return explainUnposted({ ...ctx, sql: tx }, holdId, amountQuota);
}

/** Why a post matched no pending hold; a hold posted before answers `existed`. */
async function explainUnposted(
  ctx: LedgerContext,
  holdId: string,
  amountQuota: bigint,
): Promise<Staged<PostResult>> {
  const refused = (code: "hold_not_found" | "hold_voided" | "exceeds_hold") => ({
    result: { ok: false as const, code },
    afterCommit: nothing,
  });
  const [hold] = await readHolds(ctx.sql, [holdId]);
  if (!hold) return refused("hold_not_found");
  if (hold.state === "voided") return refused("hold_voided");
  if (hold.state === "pending") {
    if (amountQuota > hold.amount_quota) return refused("exceeds_hold");
    // A pending hold within its amount always matches the update, which waits for any
    // concurrent writer of the row; reaching here means the database broke that rule.
    throw new Error(`post of hold ${holdId} matched no row although the hold is pending`);
  }
  const [entry] = await ctx.sql<{ id: bigint }[]>`
    select id from ledger_entries where business_key = ${`${holdId}:charge`}`;
  return {
    result: {
      ok: true,
      existed: true,
      postedQuota: hold.posted_quota!,
      entryId: entry?.id ?? null,
    },
    // Repeated so that a process that died between the commit and Redis is mended now;
    // at the post's version, so a wallet that took it does not take it again.
    afterCommit: () => applyPosts(ctx, [postedHold(hold)]),
  };
}

/** Voids a hold: releases it with no charge and no refund record, at most once. */
export async function voidHold(ctx: LedgerContext, holdId: string): Promise<VoidResult> {
  const { result, afterCommit } = await voidWithin(ctx, ctx.sql, holdId);
  await afterCommit();
  return result;
}

/** `voidHold` inside the caller's transaction; `afterCommit` releases it in Redis. */
export async function voidWithin(
  ctx: LedgerContext,
  tx: Sql,
  holdId: string,
): Promise<Staged<VoidResult>> {
  const [voided] = await tx<HoldRow[]>`
    update holds set state = 'voided', resolved_at = now()
    where id = ${holdId} and state = 'pending'
    returning *`;
  if (voided) {
    return {
      result: { ok: true, existed: false },
      afterCommit: () => closeHolds(ctx, voided.user_id, [voided.id]).then(nothing),
    };
  }
  const hold = await findHold({ ...ctx, sql: tx }, holdId);
  if (!hold) return { result: { ok: false, code: "hold_not_found" }, afterCommit: nothing };
  if (hold.state === "posted")
    return { result: { ok: false, code: "hold_posted" }, afterCommit: nothing };
  return {
    result: { ok: true, existed: true },
    afterCommit: () => closeHolds(ctx, hold.userId, [hold.id]).then(nothing),
  };
}

/** A posted hold's row as its wallet change. */
export function postedHold(row: HoldRow): PostedHold {
  return {
    id: row.id,
    userId: row.user_id,
    keyId: row.key_id,
    postedQuota: row.posted_quota ?? 0n,
    version: row.resolved_version ?? null,
  };
}
