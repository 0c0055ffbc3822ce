import type { RedisClient, Sql } from "@gw/store";
import type { LedgerContext } from "./context.ts";
import { postMany } from "./settle-many.ts";
import type { ChargeDetails, HoldInput } from "./types.ts";

/** A charge owed for an answer already given, until Postgres has it. */
export interface OwedCharge {
  hold: HoldInput;
  amountQuota: bigint;
  details: ChargeDetails;
}

interface Stored {
  holdId: string;
  userId: string;
  keyId: string | null;
  held: string;
  amount: string;
  details: ChargeDetails;
}

/** One stream per deployment, in one hash slot. */
export const journalKey = (prefix: string) => `${prefix}:{charges}:owed`;

const encode = (charge: OwedCharge): string =>
  JSON.stringify({
    holdId: charge.hold.holdId,
    userId: charge.hold.userId.toString(),
    keyId: charge.hold.keyId === null ? null : charge.hold.keyId.toString(),
    held: charge.hold.amountQuota.toString(),
    amount: charge.amountQuota.toString(),
    details: charge.details,
  } satisfies Stored);

function decode(text: string): OwedCharge | null {
  try {
    const stored = JSON.parse(text) as Stored;
    return {
      hold: {
        holdId: stored.holdId,
        userId: BigInt(stored.userId),
        keyId: stored.keyId === null ? null : BigInt(stored.keyId),
        amountQuota: BigInt(stored.held),
      },
      amountQuota: BigInt(stored.amount),
      details: stored.details,
    };
  } catch {
    return null;
  }
}

/** Writes what an answer owes before the answer goes out; answers the entry's id. */
export async function journalCharge(
  redis: RedisClient,
  prefix: string,
  charge: OwedCharge,
): Promise<string | null> {
  return (await redis.xadd(journalKey(prefix), "*", "c", encode(charge))) as string | null;
}

/** Forgets entries whose charges Postgres has committed. */
export async function forgetCharges(redis: RedisClient, prefix: string, ids: string[]) {
  if (ids.length > 0) await redis.xdel(journalKey(prefix), ...ids);
}

/**
 * Posts the charges of answers whose process died before it posted them: entries older
 * than `olderThanMs` (their process had that long). Each hold is written if Postgres has
 * none yet, then posted, once: a hold already posted is left as it is. Runs in the
 * worker's maintenance, well before the reconciler drops a dead process's Redis
 * reservation (60 s), so Redis learns of the charge through the posting.
 */
export async function recoverCharges(
  ctx: LedgerContext,
  olderThanMs: number,
  nowMs = Date.now(),
): Promise<number> {
  const key = journalKey(ctx.prefix);
  const entries = (await ctx.redis.xrange(key, "-", String(nowMs - olderThanMs), "COUNT", 500)) as [
    string,
    string[],
  ][];
  if (entries.length === 0) return 0;
  const owed: { id: string; charge: OwedCharge }[] = [];
  const unreadable: string[] = [];
  for (const [id, fields] of entries) {
    const charge = decode(fields[1] ?? "");
    if (charge) owed.push({ id, charge });
    else unreadable.push(id);
  }
  const staged = await ctx.sql.begin(async (raw) => {
    const tx = raw as unknown as Sql;
    for (const { charge } of owed) {
      const amount =
        charge.amountQuota > charge.hold.amountQuota ? charge.amountQuota : charge.hold.amountQuota;
      await tx`
        insert into holds (id, user_id, key_id, amount_quota, expires_at)
        values (${charge.hold.holdId}, ${charge.hold.userId}, ${charge.hold.keyId}, ${amount},
                now() + interval '1 hour')
        on conflict (id) do update set amount_quota = greatest(holds.amount_quota, excluded.amount_quota)
          where holds.state = 'pending'`;
    }
    return postMany(
      ctx,
      tx,
      owed
        .map(({ charge }) => ({
          holdId: charge.hold.holdId,
          userId: charge.hold.userId,
          amountQuota: charge.amountQuota,
          details: charge.details,
        }))
        .sort((a, b) => Number(a.userId - b.userId)),
      { capToFunds: true },
    );
  });
  await staged.afterCommit().catch(() => {});
  await forgetCharges(ctx.redis, ctx.prefix, [...owed.map((entry) => entry.id), ...unreadable]);
  return owed.length;
}
