import { runLua } from "@gw/store";
import type { LedgerContext } from "./context.ts";
import { scripts, walletStateKeys } from "./scripts.ts";

/**
 * A committed change as the Redis wallet takes it (applyChange-4.lua): the holds it
 * closed, and the money it moved at the owner's wallet version.
 */
export interface WalletChange {
  userId: bigint;
  /** users.wallet_version its transaction set; 0n for one that moves no money. */
  version: bigint;
  close: string[];
  balanceDelta: bigint;
  /** Used-budget deltas by key id. */
  keyDeltas: Map<bigint, bigint>;
}

export const APPLIED = 1;
export const ALREADY_APPLIED = 0;
export const WALLET_NOT_LOADED = -1;

/** Applies a committed change to the owner's Redis wallet; repeats change nothing. */
export async function applyChange(ctx: LedgerContext, change: WalletChange): Promise<number> {
  const args: (string | bigint)[] = [change.version, String(change.close.length), ...change.close];
  args.push(change.balanceDelta);
  for (const [keyId, delta] of change.keyDeltas) args.push(keyId, delta);
  return (await runLua(
    ctx.redis,
    scripts.applyChange,
    walletStateKeys(ctx.prefix, change.userId),
    args,
  )) as number;
}

/** Closes holds that moved no money (voided, or a reservation given back). */
export function closeHolds(ctx: LedgerContext, userId: bigint, holdIds: string[]) {
  return applyChange(ctx, {
    userId,
    version: 0n,
    close: holdIds,
    balanceDelta: 0n,
    keyDeltas: new Map(),
  });
}

/** A posted hold as the wallet takes it: its charge, at the version that charged it. */
export interface PostedHold {
  id: string;
  userId: bigint;
  keyId: bigint | null;
  postedQuota: bigint;
  /** Null for a hold posted before versions were kept: its holds are closed, no more. */
  version: bigint | null;
}

/** One change per owner and version: a batch's posts of one account share its version. */
export function postedChanges(posted: PostedHold[]): WalletChange[] {
  const changes = new Map<string, WalletChange>();
  for (const hold of posted) {
    const version = hold.version ?? 0n;
    const id = `${hold.userId}:${version}`;
    let change = changes.get(id);
    if (!change) {
      change = { userId: hold.userId, version, close: [], balanceDelta: 0n, keyDeltas: new Map() };
      changes.set(id, change);
    }
    change.close.push(hold.id);
    change.balanceDelta -= hold.postedQuota;
    if (hold.keyId !== null)
      change.keyDeltas.set(hold.keyId, (change.keyDeltas.get(hold.keyId) ?? 0n) + hold.postedQuota);
  }
  return [...changes.values()];
}

/** Applies posts to their wallets, one script call per owner and version. */
export async function applyPosts(ctx: LedgerContext, posted: PostedHold[]): Promise<void> {
  await Promise.all(postedChanges(posted).map((change) => applyChange(ctx, change)));
}
