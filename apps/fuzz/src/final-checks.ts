import type { IsolatedStore } from "@gw/store";
import type { Violation } from "./checks.ts";

/**
 * What must hold once the run drained, whatever the cases did: every wallet equals its
 * ledger (opening credit, top-ups, charges, refunds), no hold is left pending, and Redis
 * holds nothing for anyone.
 */
export async function finalChecks(store: IsolatedStore): Promise<Violation[]> {
  const found: Violation[] = [];
  const drift = await store.sql<{ id: string; balance: string; ledger: string }[]>`
    select u.id::text, u.balance_quota::text as balance, coalesce(sum(e.delta_quota), 0)::text as ledger
    from users u left join ledger_entries e on e.user_id = u.id
    group by u.id having u.balance_quota <> coalesce(sum(e.delta_quota), 0)`;
  for (const row of drift)
    found.push({
      kind: "ledger",
      detail: `account ${row.id}: balance ${row.balance} but its ledger sums to ${row.ledger}`,
    });
  const [pending] = await store.sql<{ count: string }[]>`
    select count(*)::text as count from holds where state = 'pending'`;
  if (pending!.count !== "0")
    found.push({ kind: "ledger", detail: `${pending!.count} holds still pending` });
  const ids = await store.sql<{ id: string }[]>`select id::text from users`;
  for (const { id } of ids) {
    const held = await store.redis.hget(`${store.prefix}:{u:${id}}:wallet`, "held");
    if (held !== null && held !== "0")
      found.push({ kind: "ledger", detail: `account ${id}: Redis still holds ${held}` });
  }
  return found;
}
