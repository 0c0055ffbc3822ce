import type { Sql } from "@gw/store";
import type { SoakAccount } from "./accounts.ts";
import { type Check, usd, verdict } from "./check.ts";
import type { Credit } from "./faults.ts";

/*
 * The ledger's invariants, from Postgres alone. Each query lists violations and is
 * printed with a failing check, to be run again in the kept schema.
 */

const WALLET_VS_LEDGER = `
  select u.id, u.balance_quota, u.spent_quota,
         coalesce(sum(e.delta_quota), 0)::bigint as ledger,
         coalesce(sum(e.delta_quota) filter (where e.kind = 'credit'), 0)::bigint as credits,
         coalesce(-sum(e.delta_quota) filter (where e.kind in ('charge', 'refund')), 0)::bigint as spent
  from users u left join ledger_entries e on e.user_id = u.id
  group by u.id order by u.id`;

const KEY_VS_LEDGER = `
  select k.id, k.user_id, k.used_quota, k.quota_limit,
         coalesce(-sum(e.delta_quota) filter (where e.kind in ('charge', 'refund')), 0)::bigint as ledger
  from api_keys k left join ledger_entries e on e.key_id = k.id
  group by k.id
  having k.used_quota <> coalesce(-sum(e.delta_quota) filter (where e.kind in ('charge', 'refund')), 0)
  order by k.id`;

const PENDING_HOLDS = `
  select id, user_id, key_id, amount_quota, created_at, expires_at
  from holds where state = 'pending' order by created_at`;

const NEGATIVE_PREFIX = `
  select user_id, min(running)::bigint as lowest from (
    select user_id, sum(delta_quota) over (partition by user_id order by id) as running
    from ledger_entries) r
  group by user_id having min(running) < 0 order by user_id`;

const KEY_OVER_BUDGET = `
  select k.id, k.quota_limit, k.used_quota, max(r.used)::bigint as highest from (
    select key_id, -sum(delta_quota) over (partition by key_id order by id) as used
    from ledger_entries where kind in ('charge', 'refund') and key_id is not null) r
  join api_keys k on k.id = r.key_id
  where k.quota_limit is not null
  group by k.id having max(r.used) > k.quota_limit or k.used_quota > k.quota_limit
  order by k.id`;

interface WalletRow {
  id: bigint;
  balance_quota: bigint;
  spent_quota: bigint;
  ledger: bigint;
  credits: bigint;
  spent: bigint;
}

/** Wallet = opening + credits − charges + refunds, and its parts agree with the soak's own record. */
async function walletsEqualLedger(
  sql: Sql,
  accounts: SoakAccount[],
  credits: Credit[],
): Promise<Check> {
  const rows = await sql.unsafe<WalletRow[]>(WALLET_VS_LEDGER);
  const byId = new Map(rows.map((row) => [String(row.id), row]));
  const violations: string[] = [];
  for (const row of rows) {
    if (row.balance_quota !== row.ledger)
      violations.push(
        `user ${row.id}: balance ${row.balance_quota} but the ledger sums to ${row.ledger} (${usd(row.balance_quota - row.ledger)} apart)`,
      );
    if (row.spent_quota !== row.spent)
      violations.push(
        `user ${row.id}: spent ${row.spent_quota} but charges − refunds = ${row.spent}`,
      );
  }
  for (const account of accounts) {
    const row = byId.get(account.userId);
    if (!row) {
      violations.push(`user ${account.userId}: missing`);
      continue;
    }
    const mine = credits.filter((credit) => credit.userId === account.userId);
    const sure = mine.filter((c) => c.outcome === "confirmed").reduce((s, c) => s + c.quota, 0n);
    const maybe = mine.filter((c) => c.outcome === "ambiguous").reduce((s, c) => s + c.quota, 0n);
    const low = account.openingQuota + sure;
    if (row.credits < low || row.credits > low + maybe)
      violations.push(
        `user ${account.userId}: credits in the ledger ${row.credits}, the soak made ${low} (+ up to ${maybe} unanswered)`,
      );
  }
  return verdict(
    "wallet = opening + credits − charges + refunds (ledger)",
    rows.length,
    violations,
    WALLET_VS_LEDGER,
  );
}

async function keysEqualCharges(sql: Sql): Promise<Check> {
  const rows =
    await sql.unsafe<{ id: bigint; used_quota: bigint; ledger: bigint; user_id: bigint }[]>(
      KEY_VS_LEDGER,
    );
  const [{ count }] = (await sql`select count(*)::int as count from api_keys`) as unknown as [
    { count: number },
  ];
  return verdict(
    "key used budget = its charges − refunds",
    count,
    rows.map(
      (row) => `key ${row.id} (user ${row.user_id}): used ${row.used_quota}, ledger ${row.ledger}`,
    ),
    KEY_VS_LEDGER,
  );
}

async function noPendingHold(sql: Sql): Promise<Check> {
  const rows =
    await sql.unsafe<
      { id: string; user_id: bigint; amount_quota: bigint; created_at: Date; expires_at: Date }[]
    >(PENDING_HOLDS);
  const [{ count }] = (await sql`select count(*)::int as count from holds`) as unknown as [
    { count: number },
  ];
  return verdict(
    "no hold left pending",
    count,
    rows.map(
      (row) =>
        `hold ${row.id} (user ${row.user_id}, ${row.amount_quota}) pending since ${row.created_at.toISOString()}, expires ${row.expires_at.toISOString()}`,
    ),
    PENDING_HOLDS,
  );
}

async function neverNegative(sql: Sql): Promise<Check> {
  const wallets = await sql.unsafe<{ user_id: bigint; lowest: bigint }[]>(NEGATIVE_PREFIX);
  const keys =
    await sql.unsafe<{ id: bigint; quota_limit: bigint; used_quota: bigint; highest: bigint }[]>(
      KEY_OVER_BUDGET,
    );
  const [{ count }] = (await sql`select count(*)::int as count from ledger_entries`) as unknown as [
    { count: number },
  ];
  return verdict(
    "no wallet or key budget ever below zero (final and every ledger prefix)",
    count,
    [
      ...wallets.map(
        (row) => `user ${row.user_id}: the ledger's running sum reached ${row.lowest}`,
      ),
      ...keys.map(
        (row) =>
          `key ${row.id}: budget ${row.quota_limit}, used reached ${row.highest} (now ${row.used_quota})`,
      ),
    ],
    `${NEGATIVE_PREFIX}; ${KEY_OVER_BUDGET}`,
  );
}

/** The money invariants of the ledger itself. */
export async function ledgerChecks(
  sql: Sql,
  accounts: SoakAccount[],
  credits: Credit[],
): Promise<Check[]> {
  return [
    await walletsEqualLedger(sql, accounts, credits),
    await keysEqualCharges(sql),
    await noPendingHold(sql),
    await neverNegative(sql),
  ];
}
