import { randomBytes } from "node:crypto";
import type { Sql } from "@gw/store";

/** Test fixtures: an account and a key written straight into Postgres. */
export async function seedUser(sql: Sql, balanceQuota: bigint): Promise<bigint> {
  const [user] = await sql<{ id: bigint }[]>`
    insert into users (name, balance_quota) values ('ledger-test', ${balanceQuota}) returning id`;
  if (balanceQuota > 0n) {
    await sql`insert into ledger_entries (user_id, kind, delta_quota, business_key)
              values (${user!.id}, 'credit', ${balanceQuota}, ${`seed:${user!.id}`})`;
  }
  return user!.id;
}

export async function seedKey(
  sql: Sql,
  userId: bigint,
  limitQuota: bigint | null,
): Promise<bigint> {
  const [key] = await sql<{ id: bigint }[]>`
    insert into api_keys (user_id, name, secret_hash, secret_hint, quota_limit)
    values (${userId}, 'test', ${randomBytes(32)}, 'sk-test', ${limitQuota}) returning id`;
  return key!.id;
}

/** The invariant of the whole ledger: a wallet equals the sum of its entries. */
export async function ledgerSum(
  sql: Sql,
  userId: bigint,
): Promise<{ balance: bigint; sum: bigint }> {
  const [row] = await sql<{ balance: bigint; sum: bigint }[]>`
    select u.balance_quota as balance,
           coalesce((select sum(delta_quota) from ledger_entries where user_id = u.id), 0)::bigint as sum
    from users u where u.id = ${userId}`;
  return row!;
}
