import { join } from "node:path";
import { loadLua } from "@gw/store";

const dir = join(import.meta.dir, "lua");

/** The ledger's Lua scripts, read once at import. */
export const scripts = {
  admitHold: loadLua(join(dir, "admitHold-2.lua")),
  confirmHold: loadLua(join(dir, "confirmHold-3.lua")),
  applyChange: loadLua(join(dir, "applyChange-4.lua")),
  loadWallet: loadLua(join(dir, "loadWallet-4.lua")),
  setKeyBudget: loadLua(join(dir, "setKeyBudget-2.lua")),
  healWallet: loadLua(join(dir, "healWallet-4.lua")),
};

/**
 * Redis keys of one owner's wallet. The hash tag {u:<id>} puts them in one cluster
 * slot, so every script that touches both runs on Redis Cluster unchanged.
 */
export function walletKeys(prefix: string, userId: bigint): [wallet: string, holds: string] {
  const tag = `${prefix}:{u:${userId}}`;
  return [`${tag}:wallet`, `${tag}:holds`];
}

/** The set of tokens of loads in progress; a flush empties it (see loadWallet-4.lua). */
export function loadingKey(prefix: string, userId: bigint): string {
  return `${prefix}:{u:${userId}}:loading`;
}

/** The versions above the loaded one that the wallet took (see applyChange-4.lua). */
export function appliedKey(prefix: string, userId: bigint): string {
  return `${prefix}:{u:${userId}}:applied`;
}

/** Every key of a wallet's state, in the order applyChange-4.lua takes them. */
export function walletStateKeys(prefix: string, userId: bigint): string[] {
  return [...walletKeys(prefix, userId), appliedKey(prefix, userId), loadingKey(prefix, userId)];
}
