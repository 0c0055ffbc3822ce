import {
  type AuthMode,
  checkKey,
  compileAllowList,
  hashSecret,
  type KeyRejection,
  looksLikeSecret,
  secretMatches,
} from "@gw/auth";
import type { Sql } from "@gw/store";

/** Who is calling: the key and its owner, as read in one query at authorization. */
export interface Principal {
  keyId: bigint;
  userId: bigint;
  keyName: string;
  keyStatus: "enabled" | "disabled";
  quotaLimit: bigint | null;
  usedQuota: bigint;
  rpmLimit: number;
  modelLimits: string[];
  expiresAt: number;
  balanceQuota: bigint;
  spentQuota: bigint;
  discountPpm: number;
  /** The account's model access; empty means every model. */
  allowedModels: string[];
  clientIp: string | null;
}

interface PrincipalRow {
  key_id: bigint;
  user_id: bigint;
  name: string;
  secret_hash: Uint8Array;
  status: "enabled" | "disabled";
  quota_limit: bigint | null;
  used_quota: bigint;
  rpm_limit: number;
  model_limits: string[];
  allowed_ips: string[];
  expires_at: bigint;
  deleted: boolean;
  user_status: "active" | "disabled";
  balance_quota: bigint;
  spent_quota: bigint;
  discount_ppm: number;
  allowed_models: string[];
}

export type Authorization =
  | { ok: true; principal: Principal }
  | { ok: false; code: KeyRejection | "invalid_api_key" };

/** Allow-lists compiled once per distinct list, not once per request. */
const matchers = new Map<string, (ip: string | null) => boolean>();
function matcherFor(list: string[]): (ip: string | null) => boolean {
  const cacheKey = list.join(",");
  let matcher = matchers.get(cacheKey);
  if (!matcher) {
    if (matchers.size > 10_000) matchers.clear();
    matcher = compileAllowList(list);
    matchers.set(cacheKey, matcher);
  }
  return matcher;
}

/**
 * Key rows read for paid calls, kept `ttlMs` (AUTH_CACHE_MS): a burst of calls with one
 * key costs one query. Only rules are taken from a cached row (status, expiry, IPs,
 * model access, discount); money is checked by the ledger at admission, never here.
 * Admin changes clear it in this process at once; other api processes see them
 * within `ttlMs`.
 */
export class PrincipalCache {
  private readonly rows = new Map<string, { row: PrincipalRow; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(hash: string): PrincipalRow | null {
    const entry = this.rows.get(hash);
    if (!entry) return null;
    if (entry.until > Date.now()) return entry.row;
    this.rows.delete(hash);
    return null;
  }

  set(hash: string, row: PrincipalRow): void {
    if (this.ttlMs <= 0) return;
    if (this.rows.size >= this.maxEntries) this.rows.delete(this.rows.keys().next().value!);
    this.rows.set(hash, { row, until: Date.now() + this.ttlMs });
  }

  clear(): void {
    this.rows.clear();
  }
}

async function readRow(sql: Sql, hash: Uint8Array): Promise<PrincipalRow | undefined> {
  const [row] = await sql<PrincipalRow[]>`
    select k.id as key_id, k.user_id, k.name, k.secret_hash, k.status, k.quota_limit,
           k.used_quota, k.rpm_limit, k.model_limits, k.allowed_ips, k.expires_at,
           k.deleted_at is not null as deleted, u.status as user_status,
           u.balance_quota, u.spent_quota, u.discount_ppm, u.allowed_models
    from api_keys k join users u on u.id = k.user_id
    where k.secret_hash = ${hash}`;
  return row;
}

/**
 * Authorizes a secret: one indexed query by its SHA-256 joins the key and its owner
 * (or the `cache`'s recent copy), then a constant-time comparison and the key-state
 * rules of the given mode.
 */
export async function authorize(
  sql: Sql,
  secret: string,
  mode: AuthMode,
  clientIp: string | null,
  nowSeconds = Math.floor(Date.now() / 1000),
  cache: PrincipalCache | null = null,
): Promise<Authorization> {
  if (!looksLikeSecret(secret)) return { ok: false, code: "invalid_api_key" };
  const hash = hashSecret(secret);
  const cacheKey = cache ? Buffer.from(hash).toString("base64") : "";
  let row = cache?.get(cacheKey) ?? undefined;
  if (!row) {
    row = await readRow(sql, hash);
    if (row && cache) cache.set(cacheKey, row);
  }
  if (!row || !secretMatches(secret, row.secret_hash))
    return { ok: false, code: "invalid_api_key" };
  const verdict = checkKey(
    {
      status: row.status,
      deleted: row.deleted,
      expiresAt: Number(row.expires_at),
      quotaLimit: row.quota_limit,
      usedQuota: row.used_quota,
      allowedIps: row.allowed_ips,
      userStatus: row.user_status,
    },
    mode,
    clientIp,
    nowSeconds,
    matcherFor(row.allowed_ips),
  );
  if (!verdict.ok) return verdict;
  return {
    ok: true,
    principal: {
      keyId: row.key_id,
      userId: row.user_id,
      keyName: row.name,
      keyStatus: row.status,
      quotaLimit: row.quota_limit,
      usedQuota: row.used_quota,
      rpmLimit: row.rpm_limit,
      modelLimits: row.model_limits,
      expiresAt: Number(row.expires_at),
      balanceQuota: row.balance_quota,
      spentQuota: row.spent_quota,
      discountPpm: row.discount_ppm,
      allowedModels: row.allowed_models,
      clientIp,
    },
  };
}
