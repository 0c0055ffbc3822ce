/** Expected outcomes of ledger operations; infrastructure failures are thrown instead. */
export type LedgerErrorCode =
  | "insufficient_funds"
  | "key_budget_exceeded"
  | "hold_not_found"
  | "hold_voided"
  | "hold_posted"
  | "exceeds_hold"
  | "hold_conflict"
  | "user_not_found"
  | "key_not_found";

export interface LedgerError {
  ok: false;
  code: LedgerErrorCode;
  /** For funds and budget refusals: what was available, in quota. */
  availableQuota?: bigint;
}

export type HoldState = "pending" | "posted" | "voided";

export interface HoldInput {
  /** The business id the hold pays for (a task id); a repeated id answers `existed`. */
  holdId: string;
  userId: bigint;
  keyId: bigint | null;
  amountQuota: bigint;
  /** How long the hold may stay open before the reconciler voids it. */
  ttlMs?: number;
}

export interface HoldRecord {
  id: string;
  userId: bigint;
  keyId: bigint | null;
  amountQuota: bigint;
  state: HoldState;
  postedQuota: bigint | null;
  expiresAt: Date;
}

export type HoldResult = { ok: true; existed: boolean; hold: HoldRecord } | LedgerError;

/** What the spend history shows beside a charge. */
export interface ChargeDetails {
  requestId?: string;
  model?: string;
  promptTokens?: number;
  completionTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  isStream?: boolean;
  /**
   * Shown as the key log's `other` (spec 2.13), e.g. `estimated_prompt_tokens` (the service's
   * own count) and `provider_prompt_overhead_tokens` where known.
   */
  other?: Record<string, unknown>;
}

export type PostResult =
  | { ok: true; existed: boolean; postedQuota: bigint; entryId: bigint | null }
  | LedgerError;

export type VoidResult = { ok: true; existed: boolean } | LedgerError;

export interface WalletView {
  balanceQuota: bigint;
  heldQuota: bigint;
  availableQuota: bigint;
}
