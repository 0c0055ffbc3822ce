import { randomUUID } from "node:crypto";
import { runLua } from "@gw/store";
import type { LedgerContext } from "./context.ts";
import { scripts, walletKeys } from "./scripts.ts";

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
  if (input.amountQuota <= 0n) throw new RangeError("a credit must be positive");
  const businessKey = input.businessKey ?? `credit:${randomUUID()}`;
  const outcome = await ctx.sql.begin(async (tx) => {
    const [user] = await tx<{ id: bigint }[]>`
      select id from users where id = ${input.userId} for update`;
    if (!user) return null;
    const [existing] = await tx<{ id: bigint }[]>`
      select id from ledger_entries where business_key = ${businessKey}`;
    if (existing) return { existed: true, entryId: existing.id };
    const [entry] = await tx<{ id: bigint }[]>`
      insert into ledger_entries (user_id, kind, delta_quota, business_key, note)
      values (${input.userId}, 'credit', ${input.amountQuota}, ${businessKey}, ${input.note ?? null})
      returning id`;
    await tx`update users set balance_quota = balance_quota + ${input.amountQuota}
             where id = ${input.userId}`;
    return { existed: false, entryId: entry!.id };
  });
  if (!outcome) return { ok: false, code: "user_not_found" };
  if (!outcome.existed) {
    const [wallet] = walletKeys(ctx.prefix, input.userId);
    await runLua(ctx.redis, scripts.adjustWallet, [wallet], ["credit", input.amountQuota]);
  }
  return { ok: true, ...outcome };
}
