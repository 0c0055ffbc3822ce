import { randomUUID } from "node:crypto";
import { runLua } from "@gw/store";
import type { LedgerContext } from "./context.ts";
import { appliedKey, loadingKey, scripts, walletKeys, walletStateKeys } from "./scripts.ts";
import type { WalletView } from "./types.ts";

interface KeyRow {
  id: bigint;
  quota_limit: bigint | null;
  used_quota: bigint;
}

interface HoldRow {
  id: string;
  key_id: bigint | null;
  amount_quota: bigint;
  created_ms: bigint;
}

/**
 * Loads of one wallet retried because Redis was flushed, or a change committed, while
 * it read Postgres; after the first retries each waits a little, so a busy account's
 * stream of changes cannot starve its load.
 */
const LOAD_ATTEMPTS = 16;
/** A loader that died leaves its token behind this long at most. */
const TOKEN_TTL_MS = 60_000;

/**
 * Loads a wallet into Redis from Postgres, the truth: balance, every key's budget and
 * every open hold. Reads happen in one repeatable-read snapshot so the figures agree,
 * with the owner's wallet version: the wallet then takes only changes above it.
 * The loader registers a token in Redis before it reads: a flush in between deletes
 * it, as does a committed change that found no wallet, and the stale snapshot is then
 * read again instead of written. Returns false when the owner does not exist.
 */
export function loadWallet(ctx: LedgerContext, userId: bigint): Promise<boolean> {
  // Requests that find the wallet missing at once (after a flush, hundreds may) share
  // one load per process instead of each reading Postgres.
  const key = `${ctx.prefix}:${userId}`;
  const running = inFlight.get(key);
  if (running) return running;
  const load = loadOnce(ctx, userId).finally(() => inFlight.delete(key));
  inFlight.set(key, load);
  return load;
}

const inFlight = new Map<string, Promise<boolean>>();

async function loadOnce(ctx: LedgerContext, userId: bigint): Promise<boolean> {
  const loading = loadingKey(ctx.prefix, userId);
  for (let attempt = 0; attempt < LOAD_ATTEMPTS; attempt++) {
    if (attempt >= 2) await Bun.sleep(Math.random() * 5 * attempt);
    const token = randomUUID();
    await ctx.redis.multi().sadd(loading, token).pexpire(loading, TOKEN_TTL_MS).exec();
    const snapshot = await readSnapshot(ctx, userId);
    if (!snapshot) {
      await ctx.redis.srem(loading, token);
      return false;
    }
    const args: (string | bigint)[] = [
      token,
      snapshot.version,
      snapshot.balance,
      String(snapshot.keys.length),
    ];
    for (const key of snapshot.keys) args.push(key.id, key.quota_limit ?? -1n, key.used_quota);
    for (const hold of snapshot.holds) {
      args.push(hold.id, hold.amount_quota, hold.key_id ?? 0n, hold.created_ms);
    }
    const keys = [...walletKeys(ctx.prefix, userId), loading, appliedKey(ctx.prefix, userId)];
    if ((await runLua(ctx.redis, scripts.loadWallet, keys, args)) !== -1) return true;
  }
  throw new Error(
    `wallet of user ${userId}: Redis was flushed or the wallet changed during every load`,
  );
}

async function readSnapshot(ctx: LedgerContext, userId: bigint) {
  return ctx.sql.begin("isolation level repeatable read read only", async (tx) => {
    const [user] = await tx<{ balance_quota: bigint; wallet_version: bigint }[]>`
      select balance_quota, wallet_version from users where id = ${userId}`;
    if (!user) return null;
    const keys = await tx<KeyRow[]>`
      select id, quota_limit, used_quota from api_keys where user_id = ${userId}`;
    const holds = await tx<HoldRow[]>`
      select id, key_id, amount_quota,
             (extract(epoch from created_at) * 1000)::bigint as created_ms
      from holds where user_id = ${userId} and state = 'pending'`;
    return { version: user.wallet_version, balance: user.balance_quota, keys, holds };
  });
}

/** Drops a wallet's Redis state (loads under way read again) and loads it from Postgres. */
export async function resyncWallet(ctx: LedgerContext, userId: bigint): Promise<boolean> {
  await ctx.redis.del(...walletStateKeys(ctx.prefix, userId));
  return loadWallet(ctx, userId);
}

/**
 * Tells a loaded wallet a key's budget (after the key is created or changed in
 * Postgres). Returns false when the owner has no such key.
 */
export async function syncKeyBudget(
  ctx: LedgerContext,
  userId: bigint,
  keyId: bigint,
): Promise<boolean> {
  const [key] = await ctx.sql<KeyRow[]>`
    select id, quota_limit, used_quota from api_keys where id = ${keyId} and user_id = ${userId}`;
  if (!key) return false;
  const [wallet] = walletKeys(ctx.prefix, userId);
  await runLua(
    ctx.redis,
    scripts.setKeyBudget,
    [wallet, loadingKey(ctx.prefix, userId)],
    [key.id, key.quota_limit ?? -1n, key.used_quota],
  );
  return true;
}

/** The wallet as Redis sees it, loading it first when needed. */
export async function readWallet(ctx: LedgerContext, userId: bigint): Promise<WalletView | null> {
  const [wallet] = walletKeys(ctx.prefix, userId);
  for (let attempt = 0; attempt < LOAD_ATTEMPTS; attempt++) {
    const [balance, held] = await ctx.redis.hmget(wallet, "balance", "held");
    if (balance != null && held != null) {
      const balanceQuota = BigInt(balance);
      const heldQuota = BigInt(held);
      return { balanceQuota, heldQuota, availableQuota: balanceQuota - heldQuota };
    }
    if (!(await loadWallet(ctx, userId))) return null;
  }
  throw new Error(`wallet of user ${userId} could not be loaded into Redis`);
}
