import type { IsolatedStore } from "@gw/store";

/**
 * Money, tasks and history in a few sums and counts: cheap enough to take around every
 * case. Any refused call that moves one of them changed state it must not have.
 * Redis's view counts too: held amounts and open holds in every wallet.
 */
export interface Snapshot {
  users: string;
  balance: string;
  spent: string;
  /**
   * A digest of every account and key row (status, limits, budgets, names); not the
   * webhook secret, which its GET makes on first read, by design.
   */
  accounts: string;
  keyUsed: string;
  holds: string;
  pendingHolds: string;
  ledgerEntries: string;
  ledgerSum: string;
  tasks: string;
  /** A digest of every task's id, state and charge. */
  taskStates: string;
  webhookDeliveries: string;
  closedEndpoints: string;
  redisHeld: string;
  redisOpenHolds: string;
}

export async function takeSnapshot(store: IsolatedStore): Promise<Snapshot> {
  const [row] = await store.sql<Omit<Snapshot, "redisHeld" | "redisOpenHolds">[]>`
    select
      (select count(*) from users)::text as users,
      (select coalesce(sum(balance_quota), 0) from users)::text as balance,
      (select coalesce(sum(spent_quota), 0) from users)::text as spent,
      (select md5(coalesce(string_agg(concat_ws(',', id, name, balance_quota, spent_quota,
         discount_ppm, status, allowed_models), '|' order by id), '')) from users)
        || (select md5(coalesce(string_agg(k::text, '|' order by id), '')) from api_keys k) as accounts,
      (select coalesce(sum(used_quota), 0) from api_keys)::text as "keyUsed",
      (select count(*) from holds)::text as holds,
      (select count(*) from holds where state = 'pending')::text as "pendingHolds",
      (select count(*) from ledger_entries)::text as "ledgerEntries",
      (select coalesce(sum(delta_quota), 0) from ledger_entries)::text as "ledgerSum",
      (select count(*) from tasks)::text as tasks,
      (select md5(coalesce(string_agg(id || status || coalesce(charged_quota::text, '-'), '|' order by id), ''))
         from tasks) as "taskStates",
      (select count(*) from webhook_deliveries)::text as "webhookDeliveries",
      (select count(*) from closed_endpoints)::text as "closedEndpoints"`;
  const ids = await store.sql<{ id: string }[]>`select id::text from users order by id`;
  const pipeline = store.redis.pipeline();
  for (const { id } of ids) {
    pipeline.hget(`${store.prefix}:{u:${id}}:wallet`, "held");
    pipeline.hlen(`${store.prefix}:{u:${id}}:holds`);
  }
  const results = (await pipeline.exec()) ?? [];
  let held = 0n;
  let open = 0;
  results.forEach(([, value], index) => {
    if (index % 2 === 0) held += BigInt((value as string | null) ?? "0");
    else open += Number(value ?? 0);
  });
  return { ...row!, redisHeld: held.toString(), redisOpenHolds: String(open) };
}

/** The fields that differ, as `name: before -> after`. */
export function diffSnapshots(before: Snapshot, after: Snapshot): string[] {
  return (Object.keys(before) as (keyof Snapshot)[])
    .filter((name) => before[name] !== after[name])
    .map((name) => `${name}: ${before[name].slice(0, 12)} -> ${after[name].slice(0, 12)}`);
}
