import { runLua } from "@gw/store";
import type { LedgerContext } from "./context.ts";
import { scripts, walletStateKeys } from "./scripts.ts";

/** Money one committed change moved, at the owner's wallet version it set. */
export interface WalletMove {
  version: bigint;
  balanceDelta: bigint;
  keyId: bigint | null;
  /** The key's used-budget delta. */
  keyDelta: bigint;
}

/** Committed changes as the Redis wallet takes them (applyChange-4.lua). */
export interface WalletChange {
  userId: bigint;
  /** Holds that closed (posted or voided, or a reservation given back). */
  close: string[];
  moves: WalletMove[];
}

/** Applies committed changes to the owner's Redis wallet; repeats change nothing. */
export async function applyChange(ctx: LedgerContext, change: WalletChange): Promise<number> {
  const args: (string | bigint)[] = [String(change.close.length), ...change.close];
  for (const move of change.moves)
    args.push(move.version, move.balanceDelta, move.keyId ?? 0n, move.keyDelta);
  return (await runLua(
    ctx.redis,
    scripts.applyChange,
    walletStateKeys(ctx.prefix, change.userId),
    args,
  )) as number;
}

/** Closes holds that moved no money (voided, or a reservation given back). */
export function closeHolds(ctx: LedgerContext, userId: bigint, holdIds: string[]) {
  return applyChange(ctx, { userId, close: holdIds, moves: [] });
}

/** A posted hold as the wallet takes it: its charge, at the version of its post. */
export interface PostedHold {
  id: string;
  userId: bigint;
  keyId: bigint | null;
  postedQuota: bigint;
  /** Null for a hold posted before versions were kept: it is closed, no more. */
  version: bigint | null;
}

/** One change per owner: its posted holds closed and each one's charge at its version. */
function postedChanges(posted: PostedHold[]): WalletChange[] {
  const changes = new Map<bigint, WalletChange>();
  for (const hold of posted) {
    let change = changes.get(hold.userId);
    if (!change) {
      change = { userId: hold.userId, close: [], moves: [] };
      changes.set(hold.userId, change);
    }
    change.close.push(hold.id);
    if (hold.version !== null)
      change.moves.push({
        version: hold.version,
        balanceDelta: -hold.postedQuota,
        keyId: hold.keyId,
        keyDelta: hold.postedQuota,
      });
  }
  return [...changes.values()];
}

/** Applies posts to their wallets, one script call per owner. */
export async function applyPosts(ctx: LedgerContext, posted: PostedHold[]): Promise<void> {
  await Promise.all(postedChanges(posted).map((change) => applyChange(ctx, change)));
}
