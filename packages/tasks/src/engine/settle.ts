import type { Ledger } from "@gw/ledger";
import type { Storage } from "@gw/storage";
import type { RedisClient, Sql } from "@gw/store";
import type { Price } from "@gw/tariffs";
import { recordDeliveries } from "@gw/webhooks";
import {
  completeRuns,
  type FinishedRow,
  failRuns,
  refailCompleted,
  type TaskFile,
  type TaskRow,
} from "../records.ts";
import { uploadsPrefix } from "../storage-keys.ts";
import { announce, type Finished } from "./announce.ts";
import { type BatchStats, createBatcher, type Outcome } from "./batcher.ts";

export type Settlement =
  | {
      type: "complete";
      task: TaskRow;
      owner: string;
      files: TaskFile[];
      price: Price;
      billing: unknown;
      startedAt: Date;
      /** The files as base64 for the announcement (small `b64_json` results). */
      inline?: string[];
    }
  | { type: "fail"; task: TaskRow; owner: string | null; code: string; reason: string };

/** completed/failed: this run's outcome was recorded; lost: another run owns the task. */
export type Settled =
  | { outcome: "completed"; finished: FinishedRow }
  | { outcome: "failed"; finished: FinishedRow }
  | { outcome: "lost" };

export interface SettlerDeps {
  storage: Storage;
  sql: Sql;
  redis: RedisClient;
  prefix: string;
  ledger: Ledger;
  log: (line: string) => void;
  /** Told of each settlement batch: how many tasks, and how long it took. */
  onBatch?: (size: number, ms: number) => void;
}

const hasUploads = (task: TaskRow) => JSON.stringify(task.input).includes('"upload:');

const EXPIRED = "the task's funds hold expired before it finished";

/**
 * Settles finished runs in batches (group commit): one transaction records the outcome
 * of every task of the batch and posts or voids their holds, so a commit carries many
 * tasks and a busy account's row is locked once per batch, not once per task. Each run
 * gets its own outcome: a run that lost its lease is `lost`; a hold that is gone (it
 * expired) turns that task into a failure while the others land. If the batch's
 * transaction fails, each settlement is tried alone, so one bad task cannot sink the rest.
 */
export function createSettler(deps: SettlerDeps) {
  const { ledger } = deps;

  const inTransaction = async (tx: Sql, items: Settlement[]) => {
    // 1. The task rows, one statement per outcome: only this run's (or a still-queued) task changes.
    const completes = items.flatMap((item) =>
      item.type === "complete"
        ? [
            {
              id: item.task.id,
              owner: item.owner,
              files: item.files,
              billing: item.billing,
              chargedQuota: item.price.quota,
              startedAt: item.startedAt,
            },
          ]
        : [],
    );
    const failures = items.flatMap((item) =>
      item.type === "fail"
        ? [{ id: item.task.id, owner: item.owner, code: item.code, reason: item.reason }]
        : [],
    );
    const [completed, failed] = await Promise.all([
      completeRuns(tx, completes),
      failRuns(tx, failures),
    ]);
    const rows = items.map(
      (item) => (item.type === "complete" ? completed : failed).shift() ?? null,
    );
    // 2. The money of the tasks whose rows changed, one statement each way: post what
    // completed (each account's balance changes once per batch), void what failed.
    const hold = (item: Settlement) => (item.task.money ?? "hold") === "hold";
    const posts = items.flatMap((item, index) =>
      item.type === "complete" && rows[index] && hold(item)
        ? [
            {
              index,
              holdId: item.task.id,
              userId: item.task.user_id,
              amountQuota: item.price.quota,
              details: { requestId: item.task.id, model: item.task.model },
            },
          ]
        : [],
    );
    const voids = items.flatMap((item, index) =>
      item.type === "fail" && rows[index] && hold(item) ? [{ index, holdId: item.task.id }] : [],
    );
    // Prepaid tasks (reserve -> charge -> refund) get back what they did not use: the
    // reserve minus the actual price, or all of it when they failed.
    const refunds = items.flatMap((item, index) =>
      rows[index] && !hold(item)
        ? [{ index, id: item.task.id, actual: item.type === "complete" ? item.price.quota : 0n }]
        : [],
    );
    // Every account this batch charges or refunds, locked in id order before any: postMany
    // locks its own accounts first, and refunds would then lock theirs out of order (a
    // refund for account 2 after a post for account 5), deadlocking with a submission
    // batch that charges reserves of accounts 2 and 5 in id order.
    const accounts = [
      ...new Set([
        ...posts.map((each) => each.userId),
        ...refunds.map((each) => items[each.index]!.task.user_id),
      ]),
    ].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (accounts.length > 1)
      await tx`select id from users where id = any(${accounts.map(String)}::bigint[])
               order by id for no key update`;
    const [posted, voided, refunded] = await Promise.all([
      ledger.postMany(tx, posts),
      ledger.voidMany(
        tx,
        voids.map((each) => each.holdId),
      ),
      Promise.all(refunds.map((each) => ledger.refundWithin(tx, each.id, each.actual))),
    ]);
    // 3. A completed task whose hold is gone is not charged: it fails instead.
    const refused = new Set([
      ...posts.filter((_, at) => !posted.result[at]?.ok).map((each) => each.index),
      ...refunds
        .filter((each, at) => items[each.index]!.type === "complete" && !refunded[at]?.result.ok)
        .map((each) => each.index),
    ]);
    const finished = await Promise.all(
      rows.map((row, index) =>
        row && refused.has(index)
          ? refailCompleted(tx, items[index]!.task.id, "expired", EXPIRED)
          : row,
      ),
    );
    // 4. Tasks that asked to be told: their deliveries commit with their settlement.
    await recordDeliveries(
      tx,
      items.flatMap((item, index) =>
        finished[index] && item.task.webhook_url
          ? [{ taskId: item.task.id, userId: item.task.user_id, url: item.task.webhook_url }]
          : [],
      ),
    );
    const staged = [posted, voided, ...refunded];
    return { finished, staged };
  };

  const flush = async (given: Settlement[]): Promise<Outcome<Settled>[]> => {
    const began = performance.now();
    try {
      return await flushInOrder(given);
    } finally {
      deps.onBatch?.(given.length, performance.now() - began);
    }
  };

  const flushInOrder = async (given: Settlement[]): Promise<Outcome<Settled>[]> => {
    // Rows are locked in one order (account, then task) by every batch, so two batches
    // settling in parallel never deadlock on each other's accounts.
    const order = given
      .map((item, index) => ({ item, index }))
      .sort(
        (a, b) =>
          Number(a.item.task.user_id - b.item.task.user_id) ||
          (a.item.task.id < b.item.task.id ? -1 : a.item.task.id > b.item.task.id ? 1 : 0),
      );
    const sorted = await flushSorted(order.map((entry) => entry.item));
    const outcomes: Outcome<Settled>[] = new Array(given.length);
    for (const [position, entry] of order.entries()) outcomes[entry.index] = sorted[position]!;
    return outcomes;
  };

  const flushSorted = async (items: Settlement[]): Promise<Outcome<Settled>[]> => {
    let done: Awaited<ReturnType<typeof inTransaction>>;
    try {
      done = await deps.sql.begin((tx) => inTransaction(tx as unknown as Sql, items));
    } catch (error) {
      if (items.length === 1) return [{ ok: false, error }];
      return Promise.all(items.map(async (item) => (await flushSorted([item]))[0]!));
    }
    // Redis learns of the posts and voids (if this fails, the reconciler mends it), in
    // parallel with the announcement: a wallet that learns a moment late only refuses.
    const released = Promise.all(done.staged.map((stage) => stage.afterCommit().catch(() => {})));
    // The tasks have ended: their uploads go before anyone hears of it.
    await Promise.all(
      items.map((item, index) =>
        done.finished[index] && hasUploads(item.task)
          ? deps.storage.deletePrefix(uploadsPrefix(item.task.id)).catch(() => 0)
          : null,
      ),
    );
    const announced: Finished[] = [];
    for (const [index, row] of done.finished.entries()) {
      if (!row) continue;
      const item = items[index]!;
      const inline =
        item.type === "complete" && row.status === "completed" ? item.inline : undefined;
      announced.push(inline ? { ...row, inline } : row);
    }
    await announce(deps.redis, deps.prefix, announced).catch((error) =>
      deps.log(`[worker] announcing ${announced.length} tasks failed: ${(error as Error).message}`),
    );
    await released;
    return done.finished.map((row) => ({
      ok: true,
      value: row
        ? { outcome: row.status === "completed" ? "completed" : "failed", finished: row }
        : { outcome: "lost" },
    }));
  };

  const batcher = createBatcher(flush, { maxBatch: 256, concurrency: 2 });
  return {
    settle: (item: Settlement): Promise<Settled> => batcher.add(item),
    stats: (): BatchStats => batcher.stats(),
  };
}

export type Settler = ReturnType<typeof createSettler>;
