export { DEFAULT_HOLD_TTL_MS } from "./context.ts";
export type { CreditInput, CreditResult } from "./credit.ts";
export { createLedger, type Ledger, type LedgerOptions } from "./ledger.ts";
export type { ReconcileReport } from "./reconcile.ts";
export { walletKeys } from "./scripts.ts";
export type { Staged } from "./settle.ts";
export type * from "./types.ts";
