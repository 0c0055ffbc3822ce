import { randomUUID } from "node:crypto";
import type { Sql } from "@gw/store";
import type { LedgerContext } from "./context.ts";
import type { Staged } from "./settle.ts";
import { applyChange } from "./wallet-change.ts";

export interface CreditInput {
  userId: bigint;
  amountQuota: bigint;
  note?: string;
  /** Makes a retried top-up land once; a fresh id is used when absent. */
  businessKey?: string;
}

export type CreditResult =
  | { ok: true; existed: boolean; entryId: bigint }
  | { ok: false; code: "user_not_found" };

/** A top-up: a `credit` ledger entry and the balance, in one transaction. */
export async function credit(ctx: LedgerContext, input: CreditInput): Promise<CreditResult> {
  const staged = await ctx.sql.begin((tx) => creditWithin(ctx, tx as unknown as Sql, input));
  await staged.afterCommit();
  return staged.result;
}

/**
 * `credit` inside the caller's transaction (an account created with an opening balance):
 * the entry and the balance commit with the caller's rows; `afterCommit` tells Redis.
 */
export async function creditWithin(
  ctx: LedgerContext,
  tx: Sql,
  input: CreditInput,
): Promise<Staged<CreditResult>> {
  if (input.amountQuota <= 0n) throw new RangeError("a credit must be positive");
  const businessKey = input.businessKey ?? `credit:${randomUUID()}`;
  const [user] = await tx<{ id: bigint }[]>`
    select id from users where id = ${input.userId} for no key update`;
  if (!user) return { result: { ok: false, code: "user_not_found" }, afterCommit: async () => {} };
  const [existing] = await tx<{ id: bigint }[]>`
    select id from ledger_entries where business_key = ${businessKey}`;
  if (existing)
    return {
      result: { ok: true, existed: true, entryId: existing.id },
      afterCommit: async () => {},
    };
  const [entry] = await tx<{ id: bigint }[]>`
    insert into ledger_entries (user_id, kind, delta_quota, business_key, note)
    values (${input.userId}, 'credit', ${input.amountQuota}, ${businessKey}, ${input.note ?? null})
    returning id`;
  const [account] = await tx<{ wallet_version: bigint }[]>`
    update users set balance_quota = balance_quota + ${input.amountQuota},
                     wallet_version = wallet_version + 1
    where id = ${input.userId}
    returning wallet_version`;
  return {
    result: { ok: true, existed: false, entryId: entry!.id },
    afterCommit: async () => {
      await applyChange(ctx, {
        userId: input.userId,
        close: [],
        moves: [
          {
            version: account!.wallet_version,
            balanceDelta: input.amountQuota,
            keyId: null,
            keyDelta: 0n,
          },
        ],
      });
    },
  };
}
