import type { Ledger } from "@gw/ledger";
import type { Sql } from "@gw/store";

export interface UserRow {
  id: bigint;
  name: string;
  balance_quota: bigint;
  spent_quota: bigint;
  discount_ppm: number;
  status: "active" | "disabled";
  allowed_models: string[];
}

export interface NewUser {
  name: string;
  balanceQuota: bigint;
  discountPpm: number;
  status: "active" | "disabled";
  allowedModels: string[];
}

/**
 * Creates an account. An opening balance is written as a credit entry in the same
 * transaction, so the wallet equals its ledger from the first moment. A new wallet is
 * not in Redis yet; it is loaded from these rows on first use.
 */
export async function createUser(sql: Sql, ledger: Ledger, input: NewUser): Promise<UserRow> {
  const { user, afterCommit } = await sql.begin(async (tx) => {
    const [row] = await tx<UserRow[]>`
      insert into users (name, balance_quota, discount_ppm, status, allowed_models)
      values (${input.name}, 0, ${input.discountPpm}, ${input.status},
              ${input.allowedModels}::text[])
      returning id, name, balance_quota, spent_quota, discount_ppm, status, allowed_models`;
    if (input.balanceQuota <= 0n) return { user: row!, afterCommit: async () => {} };
    const staged = await ledger.creditWithin(tx as unknown as Sql, {
      userId: row!.id,
      amountQuota: input.balanceQuota,
      businessKey: `opening:${row!.id}`,
      note: "opening balance",
    });
    return {
      user: { ...row!, balance_quota: input.balanceQuota },
      afterCommit: staged.afterCommit,
    };
  });
  await afterCommit();
  return user;
}

export async function findUser(sql: Sql, id: bigint): Promise<UserRow | null> {
  const [user] = await sql<UserRow[]>`
    select id, name, balance_quota, spent_quota, discount_ppm, status, allowed_models
    from users where id = ${id}`;
  return user ?? null;
}

export interface UserChanges {
  name?: string;
  discountPpm?: number;
  status?: "active" | "disabled";
  allowedModels?: string[];
}

export async function updateUser(
  sql: Sql,
  id: bigint,
  changes: UserChanges,
): Promise<UserRow | null> {
  const [user] = await sql<UserRow[]>`
    update users set
      name = coalesce(${changes.name ?? null}, name),
      discount_ppm = coalesce(${changes.discountPpm ?? null}::integer, discount_ppm),
      status = coalesce(${changes.status ?? null}, status),
      allowed_models = coalesce(${changes.allowedModels ?? null}::text[], allowed_models)
    where id = ${id}
    returning id, name, balance_quota, spent_quota, discount_ppm, status, allowed_models`;
  return user ?? null;
}

/** Accounts by id, oldest first, from after `afterId`; one more than `limit` says there are more. */
export async function listUsers(
  sql: Sql,
  { limit, afterId = 0n }: { limit: number; afterId?: bigint },
): Promise<{ users: UserRow[]; hasMore: boolean }> {
  const rows = await sql<UserRow[]>`
    select id, name, balance_quota, spent_quota, discount_ppm, status, allowed_models
    from users where id > ${afterId} order by id limit ${limit + 1}`;
  return { users: rows.slice(0, limit), hasMore: rows.length > limit };
}
