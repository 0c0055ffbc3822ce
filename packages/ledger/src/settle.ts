import { runLua } from "@gw/store";
import type { LedgerContext } from "./context.ts";
import { toHoldRecord } from "./holds.ts";
import { scripts, walletKeys } from "./scripts.ts";
import type { ChargeDetails, HoldRecord, HoldState, PostResult, VoidResult } from "./types.ts";

interface LockedHold {
  id: string;
  user_id: bigint;
  key_id: bigint | null;
  amount_quota: bigint;
  state: HoldState;
  posted_quota: bigint | null;
  expires_at: Date;
}

/**
 * Posts a hold: charges `amountQuota` (at most what was held) exactly once. The charge
 * entry, the balance, the spend and the key's used budget change in one transaction
 * under the hold's row lock; the entry's business key `<holdId>:charge` is unique, so a
 * retried post, even from another process, answers `existed` and charges nothing.
 */
export async function post(
  ctx: LedgerContext,
  holdId: string,
  amountQuota: bigint,
  details: ChargeDetails = {},
): Promise<PostResult> {
  if (amountQuota < 0n) throw new RangeError("a posted amount cannot be negative");
  const outcome = await ctx.sql.begin(async (tx) => {
    const [row] = await tx<LockedHold[]>`select * from holds where id = ${holdId} for update`;
    if (!row) return { ok: false as const, code: "hold_not_found" as const };
    if (row.state === "voided") return { ok: false as const, code: "hold_voided" as const };
    if (row.state === "posted") {
      const [entry] = await tx<{ id: bigint }[]>`
        select id from ledger_entries where business_key = ${`${holdId}:charge`}`;
      return {
        ok: true as const,
        existed: true,
        postedQuota: row.posted_quota!,
        entryId: entry?.id ?? null,
        hold: toHoldRecord(row),
      };
    }
    if (amountQuota > row.amount_quota) {
      return { ok: false as const, code: "exceeds_hold" as const };
    }
    await tx`update holds set state = 'posted', posted_quota = ${amountQuota}, resolved_at = now()
             where id = ${holdId}`;
    const [entry] = await tx<{ id: bigint }[]>`
      insert into ledger_entries (user_id, key_id, hold_id, kind, delta_quota, business_key,
        request_id, model, prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens)
      values (${row.user_id}, ${row.key_id}, ${holdId}, 'charge', ${-amountQuota},
        ${`${holdId}:charge`}, ${details.requestId ?? holdId}, ${details.model ?? null},
        ${details.promptTokens ?? 0}, ${details.completionTokens ?? 0},
        ${details.cacheReadTokens ?? 0}, ${details.cacheWriteTokens ?? 0})
      returning id`;
    await tx`update users set balance_quota = balance_quota - ${amountQuota},
                              spent_quota = spent_quota + ${amountQuota}
             where id = ${row.user_id}`;
    if (row.key_id !== null) {
      await tx`update api_keys set used_quota = used_quota + ${amountQuota} where id = ${row.key_id}`;
    }
    return {
      ok: true as const,
      existed: false,
      postedQuota: amountQuota,
      entryId: entry!.id,
      hold: toHoldRecord(row),
    };
  });
  if (!outcome.ok) return outcome;
  await releaseInRedis(ctx, outcome.hold, outcome.postedQuota);
  const { hold: _hold, ...result } = outcome;
  return result;
}

/** Voids a hold: releases it with no charge and no refund record, at most once. */
export async function voidHold(ctx: LedgerContext, holdId: string): Promise<VoidResult> {
  const outcome = await ctx.sql.begin(async (tx) => {
    const [row] = await tx<LockedHold[]>`select * from holds where id = ${holdId} for update`;
    if (!row) return { ok: false as const, code: "hold_not_found" as const };
    if (row.state === "posted") return { ok: false as const, code: "hold_posted" as const };
    if (row.state === "voided")
      return { ok: true as const, existed: true, hold: toHoldRecord(row) };
    await tx`update holds set state = 'voided', resolved_at = now() where id = ${holdId}`;
    return { ok: true as const, existed: false, hold: toHoldRecord(row) };
  });
  if (!outcome.ok) return outcome;
  await releaseInRedis(ctx, outcome.hold, 0n);
  return { ok: true, existed: outcome.existed };
}

/**
 * Applies a committed post or void to Redis. Safe to repeat: an already released hold
 * changes nothing. Called again (by the reconciler) if this process dies in between.
 */
export async function releaseInRedis(
  ctx: LedgerContext,
  hold: HoldRecord,
  postedQuota: bigint,
): Promise<number> {
  const keys = walletKeys(ctx.prefix, hold.userId);
  return (await runLua(ctx.redis, scripts.resolveHold, keys, [hold.id, postedQuota])) as number;
}
