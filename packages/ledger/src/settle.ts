import { runLua } from "@gw/store";
import type { LedgerContext } from "./context.ts";
import { findHold, type HoldRow, toHoldRecord } from "./holds.ts";
import { scripts, walletKeys } from "./scripts.ts";
import type { ChargeDetails, HoldRecord, PostResult, VoidResult } from "./types.ts";

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
  if (amountQuota < 0n) throw new RangeError("a posted amount cannot be negative");
  const [posted] = await ctx.sql<(HoldRow & { entry_id: bigint })[]>`
    with hold as (
      update holds set state = 'posted', posted_quota = ${amountQuota}, resolved_at = now()
      where id = ${holdId} and state = 'pending' and amount_quota >= ${amountQuota}
      returning *
    ), entry as (
      insert into ledger_entries (user_id, key_id, hold_id, kind, delta_quota, business_key,
        request_id, model, prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens)
      select user_id, key_id, id, 'charge', ${-amountQuota}, ${`${holdId}:charge`},
        ${details.requestId ?? holdId}, ${details.model ?? null}, ${details.promptTokens ?? 0},
        ${details.completionTokens ?? 0}, ${details.cacheReadTokens ?? 0}, ${details.cacheWriteTokens ?? 0}
      from hold
      returning id
    ), account as (
      update users set balance_quota = balance_quota - ${amountQuota},
                       spent_quota = spent_quota + ${amountQuota}
      where id = (select user_id from hold)
    ), key as (
      update api_keys set used_quota = used_quota + ${amountQuota}
      where id = (select key_id from hold)
    )
    select hold.*, entry.id as entry_id from hold, entry`;
  if (posted) {
    await releaseInRedis(ctx, toHoldRecord(posted), amountQuota);
    return { ok: true, existed: false, postedQuota: amountQuota, entryId: posted.entry_id };
  }
  return explainUnposted(ctx, holdId, amountQuota);
}

/** Why a post matched no pending hold; a hold posted before answers `existed`. */
async function explainUnposted(
  ctx: LedgerContext,
  holdId: string,
  amountQuota: bigint,
): Promise<PostResult> {
  const hold = await findHold(ctx, holdId);
  if (!hold) return { ok: false, code: "hold_not_found" };
  if (hold.state === "voided") return { ok: false, code: "hold_voided" };
  if (hold.state === "pending") {
    if (amountQuota > hold.amountQuota) return { ok: false, code: "exceeds_hold" };
    // A pending hold within its amount always matches the update, which waits for any
    // concurrent writer of the row; reaching here means the database broke that rule.
    throw new Error(`post of hold ${holdId} matched no row although the hold is pending`);
  }
  const [entry] = await ctx.sql<{ id: bigint }[]>`
    select id from ledger_entries where business_key = ${`${holdId}:charge`}`;
  // Repeated so that a process that died between the commit and Redis is mended now.
  await releaseInRedis(ctx, hold, hold.postedQuota!);
  return { ok: true, existed: true, postedQuota: hold.postedQuota!, entryId: entry?.id ?? null };
}

/** Voids a hold: releases it with no charge and no refund record, at most once. */
export async function voidHold(ctx: LedgerContext, holdId: string): Promise<VoidResult> {
  const [voided] = await ctx.sql<HoldRow[]>`
    update holds set state = 'voided', resolved_at = now()
    where id = ${holdId} and state = 'pending'
    returning *`;
  if (voided) {
    await releaseInRedis(ctx, toHoldRecord(voided), 0n);
    return { ok: true, existed: false };
  }
  const hold = await findHold(ctx, holdId);
  if (!hold) return { ok: false, code: "hold_not_found" };
  if (hold.state === "posted") return { ok: false, code: "hold_posted" };
  await releaseInRedis(ctx, hold, 0n);
  return { ok: true, existed: true };
}

/**
 * Applies a committed post or void to Redis. Safe to repeat: an already released hold
 * changes nothing. Called again (by the reconciler) if this process dies in between.
 */
export async function releaseInRedis(
  ctx: LedgerContext,
  hold: Pick<HoldRecord, "id" | "userId">,
  postedQuota: bigint,
): Promise<number> {
  const keys = walletKeys(ctx.prefix, hold.userId);
  return (await runLua(ctx.redis, scripts.resolveHold, keys, [hold.id, postedQuota])) as number;
}
