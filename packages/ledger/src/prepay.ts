import type { Sql } from "@gw/store";
import type { LedgerContext } from "./context.ts";
import { type Reservation, recordHold, reserve } from "./holds.ts";
import { postWithin, type Staged } from "./settle.ts";
import type { ChargeDetails, HoldInput, LedgerError } from "./types.ts";
import { applyChange } from "./wallet-change.ts";

/**
 * The second money mode, reserve -> charge -> refund (spec 2.6.2, audio): the reserve is
 * admitted like a hold (Redis checks the funds, so a flush can never over-admit), then
 * charged at once in the caller's transaction: a hold posted at submission, so history
 * shows the `charge` (business key `<id>:charge`). After the generation the unused part
 * is refunded once (`refundWithin`).
 */
export type Prepaid =
  | {
      ok: true;
      /** Call inside the transaction that records the task: the charge of the reserve. */
      chargeWithin: (tx: Sql) => Promise<void>;
      /**
       * After the commit: the wallet in Redis takes the charge. If Redis lost its state
       * since the admission and the rebuilt wallet does not cover it, the refusal comes
       * back and the caller refunds the reserve in full (`refundWithin(tx, id, 0n)`).
       */
      afterCommit: () => Promise<{ ok: true } | LedgerError>;
      /** After a rollback: gives the admission back. */
      release: () => Promise<void>;
    }
  | LedgerError;

export async function prepay(
  ctx: LedgerContext,
  input: HoldInput,
  details: ChargeDetails = {},
): Promise<Prepaid> {
  const reserved = await reserve(ctx, input);
  if (!reserved.ok)
    return reserved.code === "exists" ? { ok: false, code: "hold_conflict" } : reserved;
  const reservation: Reservation = reserved.reservation;
  let charged: Staged<unknown> | null = null;
  return {
    ok: true,
    async chargeWithin(tx) {
      await recordHold(ctx, tx, input);
      const staged = await postWithin(ctx, tx, input.holdId, input.amountQuota, details);
      if (!staged.result.ok)
        throw new Error(`charging reserve ${input.holdId}: ${staged.result.code}`);
      charged = staged;
    },
    async afterCommit() {
      const confirmed = await reservation.confirm();
      await charged?.afterCommit();
      return confirmed;
    },
    release: () => reservation.release(),
  };
}

export type RefundResult =
  | {
      ok: true;
      /** Another call refunded first: nothing was written now. */
      existed: boolean;
      refundedQuota: bigint;
      /** The actual price exceeded the reserve: the charge stays at the reserve. */
      capped: boolean;
    }
  | { ok: false; code: "hold_not_found" | "not_charged" };

interface RefundedRow {
  id: string;
  user_id: bigint;
  key_id: bigint | null;
  posted_quota: bigint;
  refunded_quota: bigint;
}

/**
 * Refunds what a prepaid task did not use, once: reserve - actual (everything when the
 * generation failed: actual 0). A compare-and-set on the hold (`refunded_quota is null`)
 * lets exactly one of any number of concurrent callers write the `refund` entry (business
 * key `<id>:refund`) and give the amount back to the balance, the spend and the key's
 * budget; the others answer `existed`. When the actual price exceeds the reserve, the
 * reserve was the quoted maximum and stays the charge: nothing more is taken (`capped`).
 */
export async function refundWithin(
  ctx: LedgerContext,
  tx: Sql,
  holdId: string,
  actualQuota: bigint,
): Promise<Staged<RefundResult>> {
  if (actualQuota < 0n) throw new RangeError("an actual price cannot be negative");
  const [row] = await tx<RefundedRow[]>`
    update holds set refunded_quota = greatest(posted_quota - ${actualQuota}, 0), refunded_at = now()
    where id = ${holdId} and state = 'posted' and refunded_quota is null
    returning id, user_id, key_id, posted_quota, refunded_quota`;
  if (!row) {
    const [hold] = await tx<
      { state: string; refunded_quota: bigint | null; posted_quota: bigint | null }[]
    >`
      select state, refunded_quota, posted_quota from holds where id = ${holdId}`;
    const nothing = async () => {};
    if (!hold) return { result: { ok: false, code: "hold_not_found" }, afterCommit: nothing };
    if (hold.state !== "posted" || hold.refunded_quota === null)
      return { result: { ok: false, code: "not_charged" }, afterCommit: nothing };
    return {
      result: {
        ok: true,
        existed: true,
        refundedQuota: hold.refunded_quota,
        capped: actualQuota > (hold.posted_quota ?? 0n),
      },
      afterCommit: nothing,
    };
  }
  const refund = row.refunded_quota;
  const capped = actualQuota > row.posted_quota;
  let version = 0n;
  if (refund > 0n) {
    const [account] = await tx<{ wallet_version: bigint }[]>`
      with entry as (
        insert into ledger_entries (user_id, key_id, hold_id, kind, delta_quota, business_key,
          request_id, model)
        select ${row.user_id}, ${row.key_id}, ${row.id}, 'refund', ${refund}, ${`${row.id}:refund`},
          coalesce(charge.request_id, ${row.id}), charge.model
        from (select 1) one
        left join ledger_entries charge on charge.business_key = ${`${row.id}:charge`}
      ), key as (
        update api_keys set used_quota = used_quota - ${refund} where id = ${row.key_id}
      )
      update users set balance_quota = balance_quota + ${refund}, spent_quota = spent_quota - ${refund},
                       wallet_version = wallet_version + 1
      where id = ${row.user_id}
      returning wallet_version`;
    version = account!.wallet_version;
  }
  return {
    result: { ok: true, existed: false, refundedQuota: refund, capped },
    afterCommit: async () => {
      if (refund === 0n) return;
      await applyChange(ctx, {
        userId: row.user_id,
        close: [],
        moves: [{ version, balanceDelta: refund, keyId: row.key_id, keyDelta: -refund }],
      });
    },
  };
}
