import type { Sql } from "@gw/store";
import type { LedgerContext } from "./context.ts";
import { type HoldRow, readHolds } from "./holds.ts";
import { postedHold, type Staged } from "./settle.ts";
import type { ChargeDetails, PostResult, VoidResult } from "./types.ts";
import { applyPosts, closeHolds, type PostedHold } from "./wallet-change.ts";

export interface PostItem {
  holdId: string;
  /** The hold's owner: accounts are locked in id order, so concurrent batches never deadlock. */
  userId: bigint;
  amountQuota: bigint;
  details?: ChargeDetails;
}

export interface PostManyOptions {
  /**
   * Charges at most what each account's balance and each key's budget hold when the batch
   * commits, so none goes below zero, whatever Redis admitted. For charges measured after
   * the fact (text calls), whose holds a Redis flush may have let other calls spend; a
   * capped charge keeps what it was owed in `other.capped_from_quota`.
   */
  capToFunds?: boolean;
}

/**
 * The batch with each pending hold's amount capped, in batch order, at what its account
 * and key have left once the batch's earlier holds are charged. Runs with the accounts
 * locked; locks the keys (in id order, after the accounts, as every post does).
 */
async function capToFunds(tx: Sql, items: PostItem[]): Promise<PostItem[]> {
  const ids = items.map((item) => item.holdId);
  await tx`
    select id from api_keys where id in (select key_id from holds where id = any(${ids}))
    order by id for no key update`;
  const rows = await tx<{ id: string; capped: bigint }[]>`
    with v as (
      select * from unnest(
        ${ids}::text[], ${items.map((item) => item.amountQuota.toString())}::bigint[]
      ) with ordinality as v(id, amount, n)
    ), h as (
      select v.id, v.n, v.amount, holds.user_id, holds.key_id
      from v join holds on holds.id = v.id and holds.state = 'pending'
    ), r as (
      select h.*,
        sum(h.amount) over (partition by h.user_id order by h.n) - h.amount as user_before,
        sum(h.amount) over (partition by h.key_id order by h.n) - h.amount as key_before
      from h
    )
    select r.id, greatest(0, least(
      r.amount,
      u.balance_quota - r.user_before,
      case when k.quota_limit is null then r.amount
           else k.quota_limit - k.used_quota - r.key_before end
    ))::bigint as capped
    from r join users u on u.id = r.user_id left join api_keys k on k.id = r.key_id`;
  const capped = new Map(rows.map((row) => [row.id, row.capped]));
  return items.map((item) => {
    const amount = capped.get(item.holdId);
    if (amount === undefined || amount >= item.amountQuota) return item;
    const other = {
      ...(item.details?.other ?? {}),
      capped_from_quota: item.amountQuota.toString(),
    };
    return { ...item, amountQuota: amount, details: { ...item.details, other } };
  });
}

/** Why holds matched no pending row: answered per hold, as `post`/`void` would. */
async function statesOf(tx: Sql, ids: string[]) {
  if (ids.length === 0) return new Map<string, HoldRow>();
  const rows = await readHolds(tx, ids);
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * Posts many holds inside the caller's transaction with a constant number of statements:
 * the accounts are locked in id order, then one statement moves every pending hold (within
 * its amount) to `posted`, writes their charge entries (business key `<holdId>:charge`),
 * and updates each account's balance and spend once and each key's used budget once,
 * whatever the number of its holds in the batch. Each posted hold takes a wallet version
 * of its own (kept on its charge entry), so Redis takes each charge exactly once however its
 * update comes (with the batch, again on a retry, from the reconciler). A hold that is not pending gets its own answer (`existed`, `hold_voided`,
 * `exceeds_hold`, `hold_not_found`) while the others land.
 */
export async function postMany(
  ctx: LedgerContext,
  tx: Sql,
  batch: PostItem[],
  options: PostManyOptions = {},
): Promise<Staged<PostResult[]>> {
  if (batch.length === 0) return { result: [], afterCommit: async () => {} };
  for (const item of batch)
    if (item.amountQuota < 0n) throw new RangeError("a posted amount cannot be negative");
  const users = [...new Set(batch.map((item) => item.userId))].sort((a, b) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  await tx`select id from users where id = any(${users.map(String)}::bigint[]) order by id for no key update`;
  const items = options.capToFunds ? await capToFunds(tx, batch) : batch;
  const column = <T>(pick: (item: PostItem) => T) => items.map(pick);
  const posted = await tx<(HoldRow & { entry_id: bigint; hold_version: bigint })[]>`
    with v as (
      select * from unnest(
        ${column((item) => item.holdId)}::text[],
        ${column((item) => item.amountQuota.toString())}::bigint[],
        ${column((item) => item.details?.requestId ?? null)}::text[],
        ${column((item) => item.details?.model ?? null)}::text[],
        ${column((item) => item.details?.promptTokens ?? 0)}::int[],
        ${column((item) => item.details?.completionTokens ?? 0)}::int[],
        ${column((item) => item.details?.cacheReadTokens ?? 0)}::int[],
        ${column((item) => item.details?.cacheWriteTokens ?? 0)}::int[],
        ${column((item) => (item.details?.isStream ? 1 : 0))}::int[],
        ${column((item) => (item.details?.other ? JSON.stringify(item.details.other) : null))}::text[]
      ) as v(id, amount, request_id, model, pt, ct, crt, cwt, stream, other)
    ), locked as (
      -- Holds locked in id order, as voidMany locks them: no deadlock between the two.
      select id from holds where id = any(${column((item) => item.holdId)}::text[])
      order by id for update
    ), hold as (
      update holds h set state = 'posted', posted_quota = v.amount, resolved_at = now()
      from v
      where h.id = v.id and h.id in (select id from locked) and h.state = 'pending'
        and h.amount_quota >= v.amount
      returning h.*
    ), account as (
      update users u set balance_quota = u.balance_quota - s.total,
                         spent_quota = u.spent_quota + s.total,
                         wallet_version = u.wallet_version + s.holds
      from (select user_id, sum(posted_quota) as total, count(*) as holds
            from hold group by user_id) s
      where u.id = s.user_id
      returning u.id, u.wallet_version
    ), entry as (
      -- Each posted hold gets a version of its own (the account's last ones, in hold id
      -- order), kept on its charge entry, so a repeat of one hold's post is one whole change.
      insert into ledger_entries (user_id, key_id, hold_id, kind, delta_quota, business_key,
        request_id, model, prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens,
        is_stream, other, wallet_version)
      select hold.user_id, hold.key_id, hold.id, 'charge', -hold.posted_quota, hold.id || ':charge',
        coalesce(v.request_id, hold.id), v.model, v.pt, v.ct, v.crt, v.cwt, v.stream = 1, v.other::jsonb,
        account.wallet_version - count(*) over (partition by hold.user_id)
          + row_number() over (partition by hold.user_id order by hold.id)
      from hold join v on v.id = hold.id join account on account.id = hold.user_id
      returning id, hold_id, wallet_version
    ), key as (
      update api_keys k set used_quota = k.used_quota + s.total
      from (select key_id, sum(posted_quota) as total from hold
            where key_id is not null group by key_id) s
      where k.id = s.key_id
    )
    select hold.*, entry.id as entry_id, entry.wallet_version as hold_version
    from hold join entry on entry.hold_id = hold.id`;
  const byId = new Map(posted.map((row) => [row.id, row]));
  const others = await statesOf(
    tx,
    items.filter((item) => !byId.has(item.holdId)).map((item) => item.holdId),
  );
  const released: PostedHold[] = [];
  const result = items.map((item): PostResult => {
    const row = byId.get(item.holdId);
    if (row) {
      released.push({ ...postedHold(row), version: row.hold_version });
      return { ok: true, existed: false, postedQuota: item.amountQuota, entryId: row.entry_id };
    }
    const hold = others.get(item.holdId);
    if (!hold) return { ok: false, code: "hold_not_found" };
    if (hold.state === "voided") return { ok: false, code: "hold_voided" };
    if (hold.state === "pending") return { ok: false, code: "exceeds_hold" };
    // Posted before: repeated (at its version) so a process that died between commit and
    // Redis is mended; a wallet that took it does not take it again.
    released.push(postedHold(hold));
    return { ok: true, existed: true, postedQuota: hold.posted_quota ?? 0n, entryId: null };
  });
  return { result, afterCommit: () => applyPosts(ctx, released) };
}

/** Voids many holds inside the caller's transaction, one statement; each gets its answer. */
export async function voidMany(
  ctx: LedgerContext,
  tx: Sql,
  holdIds: string[],
): Promise<Staged<VoidResult[]>> {
  if (holdIds.length === 0) return { result: [], afterCommit: async () => {} };
  const voided = await tx<HoldRow[]>`
    update holds set state = 'voided', resolved_at = now()
    where id in (
      -- Locked in id order, as postMany locks them, so a post racing a void never deadlocks.
      select id from holds where id = any(${holdIds}) and state = 'pending' order by id for update
    ) and state = 'pending'
    returning *`;
  const byId = new Map(voided.map((row) => [row.id, row]));
  const others = await statesOf(
    tx,
    holdIds.filter((id) => !byId.has(id)),
  );
  const released = new Map<bigint, string[]>();
  const result = holdIds.map((id): VoidResult => {
    const row = byId.get(id) ?? others.get(id);
    if (!row) return { ok: false, code: "hold_not_found" };
    if (row.state === "posted") return { ok: false, code: "hold_posted" };
    released.set(row.user_id, [...(released.get(row.user_id) ?? []), row.id]);
    return { ok: true, existed: !byId.has(id) };
  });
  const afterCommit = async () => {
    await Promise.all([...released].map(([userId, ids]) => closeHolds(ctx, userId, ids)));
  };
  return { result, afterCommit };
}
