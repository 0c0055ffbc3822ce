import { generateSecret, hashSecret, secretHint } from "@gw/auth";
import type { Ledger } from "@gw/ledger";
import type { Sql } from "@gw/store";

export interface KeyRow {
  id: bigint;
  user_id: bigint;
  name: string;
  status: "enabled" | "disabled";
  secret_hint: string;
  quota_limit: bigint | null;
  used_quota: bigint;
  rpm_limit: number;
  model_limits: string[];
  allowed_ips: string[];
  expires_at: bigint;
  created_at: Date;
}

const KEY_COLUMNS =
  "id, user_id, name, status, secret_hint, quota_limit, used_quota, rpm_limit, model_limits, allowed_ips, expires_at, created_at";

export interface KeySettings {
  name: string;
  quotaLimit: bigint | null;
  rpmLimit: number;
  modelLimits: string[];
  allowedIps: string[];
  expiresAt: number;
}

/**
 * Creates a key and returns its secret, the only time it exists in clear: Postgres keeps
 * its SHA-256. The owner's loaded wallet learns the key's budget at once.
 */
export async function createKey(
  sql: Sql,
  ledger: Ledger,
  userId: bigint,
  settings: KeySettings,
  secret = generateSecret(),
): Promise<{ key: KeyRow; secret: string }> {
  const [key] = await sql<KeyRow[]>`
    insert into api_keys (user_id, name, secret_hash, secret_hint, quota_limit, rpm_limit,
                          model_limits, allowed_ips, expires_at)
    values (${userId}, ${settings.name}, ${hashSecret(secret)}, ${secretHint(secret)},
            ${settings.quotaLimit}, ${settings.rpmLimit}, ${settings.modelLimits},
            ${settings.allowedIps}, ${settings.expiresAt})
    returning ${sql.unsafe(KEY_COLUMNS)}`;
  await ledger.syncKeyBudget(userId, key!.id);
  return { key: key!, secret };
}

/** A key that is not deleted, or null. */
export async function findKey(sql: Sql, id: bigint): Promise<KeyRow | null> {
  const [key] = await sql<KeyRow[]>`
    select ${sql.unsafe(KEY_COLUMNS)} from api_keys where id = ${id} and deleted_at is null`;
  return key ?? null;
}

export type KeyChanges = Partial<KeySettings> & { status?: "enabled" | "disabled" };

export async function updateKey(
  sql: Sql,
  ledger: Ledger,
  id: bigint,
  changes: KeyChanges,
): Promise<KeyRow | null> {
  const setQuota = changes.quotaLimit !== undefined;
  const [key] = await sql<KeyRow[]>`
    update api_keys set
      name = coalesce(${changes.name ?? null}, name),
      status = coalesce(${changes.status ?? null}, status),
      quota_limit = case when ${setQuota} then ${changes.quotaLimit ?? null}::bigint else quota_limit end,
      rpm_limit = coalesce(${changes.rpmLimit ?? null}::integer, rpm_limit),
      model_limits = coalesce(${changes.modelLimits ?? null}::text[], model_limits),
      allowed_ips = coalesce(${changes.allowedIps ?? null}::text[], allowed_ips),
      expires_at = coalesce(${changes.expiresAt ?? null}::bigint, expires_at)
    where id = ${id} and deleted_at is null
    returning ${sql.unsafe(KEY_COLUMNS)}`;
  if (key && setQuota) await ledger.syncKeyBudget(key.user_id, key.id);
  return key ?? null;
}

/** Deletes a key for good: it never authorizes again, even read-only. The row stays for the ledger. */
export async function deleteKey(sql: Sql, id: bigint): Promise<boolean> {
  const rows = await sql`update api_keys set deleted_at = now(), status = 'disabled'
                         where id = ${id} and deleted_at is null returning id`;
  return rows.length > 0;
}

/** Keys that are not deleted, by id, of one account or all; one more than `limit` says there are more. */
export async function listKeys(
  sql: Sql,
  { userId, limit, afterId = 0n }: { userId?: bigint; limit: number; afterId?: bigint },
): Promise<{ keys: KeyRow[]; hasMore: boolean }> {
  const rows = await sql<KeyRow[]>`
    select ${sql.unsafe(KEY_COLUMNS)} from api_keys
    where deleted_at is null and id > ${afterId}
      ${userId === undefined ? sql`` : sql`and user_id = ${userId}`}
    order by id limit ${limit + 1}`;
  return { keys: rows.slice(0, limit), hasMore: rows.length > limit };
}
