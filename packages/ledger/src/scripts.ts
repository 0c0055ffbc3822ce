import { join } from "node:path";
import { loadLua } from "@gw/store";

const dir = join(import.meta.dir, "lua");

/** The ledger's Lua scripts, read once at import. */
export const scripts = {
  admitHold: loadLua(join(dir, "admitHold-2.lua")),
  confirmHold: loadLua(join(dir, "confirmHold-2.lua")),
  resolveHold: loadLua(join(dir, "resolveHold-2.lua")),
  loadWallet: loadLua(join(dir, "loadWallet-3.lua")),
  adjustWallet: loadLua(join(dir, "adjustWallet-1.lua")),
};

/**
 * Redis keys of one owner's wallet. The hash tag {u:<id>} puts them in one cluster
 * slot, so every script that touches both runs on Redis Cluster unchanged.
 */
export function walletKeys(prefix: string, userId: bigint): [wallet: string, holds: string] {
  const tag = `${prefix}:{u:${userId}}`;
  return [`${tag}:wallet`, `${tag}:holds`];
}

/** The set of tokens of loads in progress; a flush empties it (see loadWallet-3.lua). */
export function loadingKey(prefix: string, userId: bigint): string {
  return `${prefix}:{u:${userId}}:loading`;
}
