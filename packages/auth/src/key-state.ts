import { ipAllowed } from "./ip.ts";

/**
 * - `ordinary`: every paid or model call; a disabled, expired or exhausted key is refused.
 * - `read_only` (`/api/usage/token/`, `/api/log/token`): a key may inspect itself in any state
 *   but deleted, if its account is active.
 * - `spend_history` (`/api/usage/self/*`, spec 4.10): an exhausted key may read the account's
 *   history (to see where its budget went); a disabled or expired one may not.
 */
export type AuthMode = "ordinary" | "read_only" | "spend_history";

export interface KeyFacts {
  status: "enabled" | "disabled";
  deleted: boolean;
  /** Unix seconds; 0 means the key never expires. */
  expiresAt: number;
  /** null means the key has no budget of its own. */
  quotaLimit: bigint | null;
  usedQuota: bigint;
  allowedIps: readonly string[];
  userStatus: "active" | "disabled";
}

export type KeyRejection =
  | "key_deleted"
  | "account_disabled"
  | "key_disabled"
  | "key_expired"
  | "key_exhausted"
  | "ip_not_allowed";

export type KeyCheck = { ok: true } | { ok: false; code: KeyRejection };

const OK: KeyCheck = { ok: true };

/**
 * Decides whether a key may authenticate. Read-only mode lets a disabled, expired or exhausted
 * key inspect itself (e.g. to see why it stopped working), but never a deleted key or a
 * disabled account. The IP check comes last so a bad key answers 401 before a 403.
 * Pass `ipMatcher` (from compileAllowList) to avoid re-parsing the allow-list per request.
 */
export function checkKey(
  facts: KeyFacts,
  mode: AuthMode,
  clientIp: string | null,
  nowSeconds: number,
  ipMatcher?: (ip: string | null) => boolean,
): KeyCheck {
  const rejection = keyRejection(facts, mode, nowSeconds);
  if (rejection !== null) return { ok: false, code: rejection };
  const allowed = ipMatcher ? ipMatcher(clientIp) : ipAllowed(facts.allowedIps, clientIp);
  return allowed ? OK : { ok: false, code: "ip_not_allowed" };
}

function keyRejection(facts: KeyFacts, mode: AuthMode, now: number): KeyRejection | null {
  if (facts.deleted) return "key_deleted";
  if (facts.userStatus !== "active") return "account_disabled";
  if (mode === "read_only") return null;
  if (facts.status !== "enabled") return "key_disabled";
  if (isExpired(facts.expiresAt, now)) return "key_expired";
  if (mode === "spend_history") return null;
  if (isExhausted(facts)) return "key_exhausted";
  return null;
}

export function isExpired(expiresAt: number, nowSeconds: number): boolean {
  return expiresAt !== 0 && expiresAt <= nowSeconds;
}

export function isExhausted(facts: Pick<KeyFacts, "quotaLimit" | "usedQuota">): boolean {
  return facts.quotaLimit !== null && facts.usedQuota >= facts.quotaLimit;
}

/** A key problem is an authentication failure (401); a wrong address is a refusal (403). */
export function rejectionStatus(code: KeyRejection): 401 | 403 {
  return code === "ip_not_allowed" ? 403 : 401;
}
