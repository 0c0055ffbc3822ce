import type { IsolatedStore } from "@gw/store";

/** How long accepted work may take to finish before the fuzzer calls it stuck. */
export const SETTLE_LIMIT_MS = 60_000;

/** Work still open: tasks not final, holds pending in Postgres, holds open in Redis. */
export interface OpenWork {
  tasks: number;
  holds: number;
  redisHolds: number;
}

export const NO_WORK: OpenWork = { tasks: 0, holds: 0, redisHolds: 0 };

export async function openWork(store: IsolatedStore): Promise<OpenWork> {
  const [row] = await store.sql<{ tasks: string; holds: string }[]>`
    select
      (select count(*) from tasks where status in ('queued', 'processing'))::text as tasks,
      (select count(*) from holds where state = 'pending')::text as holds`;
  // A text call's hold lives in Redis until it settles, just after its answer ends.
  const ids = await store.sql<{ id: string }[]>`select id::text from users`;
  const pipeline = store.redis.pipeline();
  for (const { id } of ids) pipeline.hlen(`${store.prefix}:{u:${id}}:holds`);
  const results = (await pipeline.exec()) ?? [];
  const redisHolds = results.reduce((sum, [, value]) => sum + Number(value ?? 0), 0);
  return { tasks: Number(row!.tasks), holds: Number(row!.holds), redisHolds };
}

const within = (open: OpenWork, limit: OpenWork) =>
  open.tasks <= limit.tasks && open.holds <= limit.holds && open.redisHolds <= limit.redisHolds;

/**
 * Waits until every task is final and no hold is open (beyond `tolerated`: work already
 * reported stuck), so the next case's "before" snapshot cannot move on its own, e.g. a
 * worker charging an earlier task. Returns the open work when the limit passed, else null.
 */
export async function settle(
  store: IsolatedStore,
  tolerated: OpenWork = NO_WORK,
  limitMs = SETTLE_LIMIT_MS,
): Promise<OpenWork | null> {
  const deadline = Date.now() + limitMs;
  let open = await openWork(store);
  for (let wait = 5; !within(open, tolerated); wait = Math.min(wait * 2, 200)) {
    if (Date.now() > deadline) return open;
    await Bun.sleep(wait);
    open = await openWork(store);
  }
  return null;
}
