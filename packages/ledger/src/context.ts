import type { RedisClient, Sql } from "@gw/store";

export interface LedgerContext {
  sql: Sql;
  redis: RedisClient;
  /** Prefix of every Redis key the ledger writes. */
  prefix: string;
  /** Default lifetime of a hold before the reconciler voids it. */
  holdTtlMs: number;
}

/** A hold outlives the longest wait a client may make (660 s) with room for settlement. */
export const DEFAULT_HOLD_TTL_MS = 30 * 60 * 1000;
export const MAX_HOLD_TTL_MS = 24 * 60 * 60 * 1000;
