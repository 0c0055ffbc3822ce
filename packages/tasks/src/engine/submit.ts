import type { HoldInput, Ledger, LedgerError, Reservation } from "@gw/ledger";
import type { Storage } from "@gw/storage";
import { isConnectionError, type RedisClient, type Sql } from "@gw/store";
import type { PriceSnapshot } from "@gw/tariffs";
import { inTurn } from "../idempotency.ts";
import { newTaskId, type TaskIdPrefix } from "../ids.ts";
import { enqueue } from "../queue.ts";
import {
  failTask,
  findByIdempotencyKey,
  findTask,
  insertTasks,
  type MoneyMode,
  type NewTask,
  type TaskRow,
} from "../records.ts";
import { uploadKey, uploadsPrefix } from "../storage-keys.ts";
import type { Upload } from "../uploads.ts";
import { type BatchStats, createBatcher, type Outcome } from "./batcher.ts";
import { encodeTask } from "./task-json.ts";

export interface SubmitDeps {
  sql: Sql;
  redis: RedisClient;
  ledger: Ledger;
  storage: Storage;
  prefix: string;
  /** Job partitions (JOB_PARTITIONS); workers read the same number. */
  partitions: number;
  log?: (line: string) => void;
}

/** A validated, priced call to run as a paid task. */
export interface PaidCall {
  kind: string;
  idPrefix: TaskIdPrefix;
  userId: bigint;
  keyId: bigint | null;
  model: string;
  requestedModel: string;
  operation: string;
  prompt: string | null;
  input: Record<string, unknown>;
  responseFormat: "url" | "b64_json";
  price: PriceSnapshot;
  /** What is held (hold → post/void) or charged up front (reserve): the quoted maximum. */
  holdQuota: bigint;
  /** hold → post/void (images, video; the default) or reserve → charge → refund (audio). */
  money?: MoneyMode;
  /** Files the input names `upload:<n>`; stored before the task is recorded. */
  uploads?: Upload[];
  /** The Idempotency-Key and the request's fingerprint. */
  idempotency?: { key: string; hash: string } | null;
  /** Where to POST the signed task object when it ends (checked by the caller's URL rules). */
  webhookUrl?: string | null;
  /** The x-request-id of the call, kept on the task for the worker's log lines. */
  requestId?: string | null;
}

/** Why a submission was refused; nothing was held, recorded or queued. */
export class SubmitRefused extends Error {
  constructor(
    readonly code: "insufficient_funds" | "key_budget_exceeded" | "idempotency_conflict",
    readonly detail: { neededQuota?: bigint; availableQuota?: bigint; taskId?: string },
  ) {
    super(code);
  }
}

interface Pending {
  task: NewTask;
  /**
   * The money side in the batch's transaction: a hold (written with the batch's other
   * holds in one statement), or a reserve's charge (written by `record`).
   */
  hold?: HoldInput;
  record?: (tx: Sql) => Promise<unknown>;
}

const LATE_REFUSALS = {
  insufficient_funds: "Insufficient balance for this request",
  key_budget_exceeded: "This API key's remaining budget is too small for this request",
} as const;

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === "23505";

function refusal(refused: LedgerError, neededQuota: bigint): Error {
  if (refused.code === "insufficient_funds" || refused.code === "key_budget_exceeded")
    return new SubmitRefused(refused.code, {
      neededQuota,
      availableQuota: refused.availableQuota ?? 0n,
    });
  return new Error(`hold refused: ${refused.code}`);
}

/**
 * Submission of paid tasks, for every kind: funds are admitted in Redis (a refusal costs
 * no Postgres work), then concurrent submissions share one Postgres transaction (group
 * commit: task rows and holds of many calls, one commit), then each hold is confirmed
 * and its job enqueued with the task row, so the first run reads nothing back. Each
 * caller answers only after its own rows committed; a batch that fails is retried one
 * submission at a time, and a submission that fails releases its hold.
 */
/** How long a submission whose commit lost its connection waits to learn whether it landed. */
const COMMIT_CHECK_MS = 10_000;

export function createSubmitter(deps: SubmitDeps) {
  const { sql, ledger } = deps;

  const flush = async (items: Pending[]): Promise<Outcome<TaskRow>[]> => {
    try {
      // Accounts in id order: a reserve's charge locks its account row, and two batches
      // committing at once must not take them in opposite orders.
      const ordered = [...items].sort((a, b) =>
        a.task.userId < b.task.userId ? -1 : a.task.userId > b.task.userId ? 1 : 0,
      );
      const rows = await sql.begin(async (sql) => {
        const tx = sql as unknown as Sql;
        const [inserted] = await Promise.all([
          insertTasks(
            tx,
            items.map((item) => item.task),
          ),
          ledger.recordHolds(
            tx,
            ordered.flatMap((item) => (item.hold ? [item.hold] : [])),
          ),
          Promise.all(ordered.map((item) => item.record?.(tx))),
        ]);
        return inserted;
      });
      return rows.map((value) => ({ ok: true, value }));
    } catch (error) {
      if (items.length === 1) return [{ ok: false, error }];
      // One bad submission (a repeated Idempotency-Key) must not sink the others.
      return Promise.all(items.map(async (item) => (await flush([item]))[0]!));
    }
  };
  const batcher = createBatcher(flush, { maxBatch: 128, concurrency: 2 });

  /**
   * Funds came back refused after a Redis rebuild: void the hold (or refund the whole
   * reserve) and fail the task before it ever runs.
   */
  const refuseLate = async (taskId: string, money: MoneyMode, refused: LedgerError) => {
    const staged = await sql.begin(async (tx) => {
      const voided =
        money === "reserve"
          ? await ledger.refundWithin(tx as unknown as Sql, taskId, 0n)
          : await ledger.voidWithin(tx as unknown as Sql, taskId);
      await failTask(
        tx as unknown as Sql,
        taskId,
        null,
        refused.code,
        LATE_REFUSALS[refused.code as keyof typeof LATE_REFUSALS] ?? refused.code,
      );
      return voided;
    });
    await staged.afterCommit();
  };

  const dropUploads = async (call: PaidCall, taskId: string) => {
    if (call.uploads?.length) await deps.storage.deletePrefix(uploadsPrefix(taskId));
  };

  /**
   * The task of a submission whose commit lost its connection: the row once Postgres
   * answers (the commit happened), null when it answers without it (it did not), or
   * undefined when it stays unreachable for COMMIT_CHECK_MS.
   */
  const findCommitted = async (id: string): Promise<TaskRow | null | undefined> => {
    const until = Date.now() + COMMIT_CHECK_MS;
    for (;;) {
      try {
        return await findTask(sql, id);
      } catch (error) {
        if (!isConnectionError(error) || Date.now() > until) return undefined;
        await Bun.sleep(250);
      }
    }
  };

  const create = async (call: PaidCall): Promise<TaskRow> => {
    const id = newTaskId(call.idPrefix);
    const hold: HoldInput = {
      holdId: id,
      userId: call.userId,
      keyId: call.keyId,
      amountQuota: call.holdQuota,
    };
    const money = call.money ?? "hold";
    let record: Pending["record"];
    let holdRow: HoldInput | undefined;
    let release: () => Promise<void>;
    let confirm: () => Promise<{ ok: true } | LedgerError>;
    if (money === "reserve") {
      const prepaid = await ledger.prepay(hold, { requestId: id, model: call.model });
      if (!prepaid.ok) throw refusal(prepaid, call.holdQuota);
      record = (tx) => prepaid.chargeWithin(tx);
      release = prepaid.release;
      confirm = prepaid.afterCommit;
    } else {
      const reserved = await ledger.reserve(hold);
      if (!reserved.ok) {
        if (reserved.code === "exists") throw new Error(`hold ${id} exists already`);
        throw refusal(reserved, call.holdQuota);
      }
      const reservation: Reservation = reserved.reservation;
      holdRow = hold;
      release = reservation.release;
      confirm = reservation.confirm;
    }
    let row: TaskRow;
    try {
      for (const [index, upload] of (call.uploads ?? []).entries())
        await deps.storage.put(uploadKey(id, index), upload.bytes, upload.contentType);
      row = await batcher.add({
        ...(record ? { record } : {}),
        ...(holdRow ? { hold: holdRow } : {}),
        task: {
          id,
          kind: call.kind,
          money,
          userId: call.userId,
          keyId: call.keyId,
          model: call.model,
          requestedModel: call.requestedModel,
          operation: call.operation,
          prompt: call.prompt,
          input: call.input,
          responseFormat: call.responseFormat,
          price: call.price,
          holdQuota: call.holdQuota,
          idempotencyKey: call.idempotency?.key ?? null,
          requestHash: call.idempotency?.hash ?? null,
          webhookUrl: call.webhookUrl ?? null,
          requestId: call.requestId ?? null,
        },
      });
    } catch (error) {
      // A connection lost during a commit leaves it unknown (and a batch's retry one by
      // one then meets its own rows): the task may be there, and then it stands.
      const committed = await findCommitted(id);
      if (committed === undefined) throw error; // still unknown: keep the reservation
      if (!committed) {
        await release();
        await dropUploads(call, id);
        throw error;
      }
      row = committed;
    }
    let confirmed: { ok: true } | LedgerError;
    try {
      confirmed = await confirm();
    } catch (error) {
      // The task is committed and its funds are not confirmed (Redis or Postgres failed
      // meanwhile). It is not enqueued: the sweep finds it, and the worker checks its hold
      // against the wallet before its first run, as for an api that died here.
      deps.log?.(`[tasks] confirming the funds of ${id} failed: ${(error as Error).message}`);
      return row;
    }
    if (!confirmed.ok) {
      await refuseLate(id, money, confirmed);
      await dropUploads(call, id);
      throw refusal(confirmed, call.holdQuota);
    }
    try {
      await enqueue(deps.redis, deps.prefix, deps.partitions, [
        { taskId: id, task: encodeTask(row) },
      ]);
    } catch (error) {
      // The task is recorded; the sweep enqueues it again from Postgres.
      deps.log?.(`[tasks] enqueue of ${id} failed: ${(error as Error).message}`);
    }
    return row;
  };

  /** The earlier task of this Idempotency-Key, or a refusal when it was used for another request. */
  const replay = async (call: PaidCall, key: string, hash: string) => {
    const existing = await findByIdempotencyKey(sql, call.userId, key);
    if (!existing) return null;
    if (existing.request_hash !== hash)
      throw new SubmitRefused("idempotency_conflict", { taskId: existing.id });
    return existing;
  };

  return {
    /**
     * Creates the paid task of a validated call and queues it; answers the row. With an
     * Idempotency-Key, copies take turns and all answer the one task it made.
     */
    async submit(call: PaidCall): Promise<TaskRow> {
      const idem = call.idempotency;
      if (!idem) return create(call);
      const earlier = await replay(call, idem.key, idem.hash);
      if (earlier) return earlier;
      return inTurn(deps.redis, deps.prefix, call.userId, idem.key, {
        earlier: () => replay(call, idem.key, idem.hash),
        create: () =>
          create(call).catch(async (error) => {
            // Redis lost the turn and another copy committed first: its task is the answer.
            const winner = isUniqueViolation(error)
              ? await replay(call, idem.key, idem.hash)
              : null;
            if (winner) return winner;
            throw error;
          }),
      });
    },
    /** Sizes of the group commits so far. */
    stats: (): BatchStats => batcher.stats(),
  };
}

export type Submitter = ReturnType<typeof createSubmitter>;
