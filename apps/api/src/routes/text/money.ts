import type { ChargeDetails, HoldInput, Ledger, LedgerError } from "@gw/ledger";
import type { Sql } from "@gw/store";
import { createBatcher } from "@gw/tasks";

/** A text call's funds: admitted in Redis before the upstream call, recorded meanwhile. */
export interface TextHold {
  input: HoldInput;
  /**
   * Postgres's copy of the hold: none while the call is short (the charge's transaction
   * writes it), recording once the call runs past RECORD_AFTER_MS, then recorded.
   */
  recording: Promise<boolean> | null;
  timer: ReturnType<typeof setTimeout> | null;
  reservation: { confirm(): Promise<unknown>; release(): Promise<void> };
  /** Redis's admission of what the call cost beyond the estimate, until the charge lands. */
  extra?: { release(): Promise<void> };
}

export type Admission = { ok: true; hold: TextHold } | LedgerError;

/**
 * A call still running after this has its hold written to Postgres, well within the
 * reconciler's orphan window (60 s) for Redis reservations with no row.
 */
export const RECORD_AFTER_MS = 5_000;

/**
 * A settlement attempt still unanswered after this is given up and tried again. A
 * transaction whose connection Postgres lost at the wrong moment can wait forever in the
 * client (seen in the soak, issue 16: ten charges never landed, and the batcher's slots
 * stayed taken); the attempt it abandons commits at most once anyway, since a post only
 * matches a pending hold and a retry finds its holds written.
 */
export const SETTLE_ATTEMPT_MS = 5_000;

function withinDeadline<T>(attempt: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer from Postgres within ${SETTLE_ATTEMPT_MS} ms`)),
      SETTLE_ATTEMPT_MS,
    );
  });
  return Promise.race([attempt, deadline]).finally(() => clearTimeout(timer));
}

/** How a call ends, money-wise: a charge of what the provider reports, or nothing. */
export type TextSettlement =
  | {
      type: "charge";
      hold: TextHold;
      amountQuota: bigint;
      details: ChargeDetails;
      /** Its entry in the journal of owed charges, forgotten once the charge committed. */
      journalId?: string | null;
    }
  | { type: "release"; hold: TextHold };

/**
 * The money of text calls (issue 15). The admission stays on the request path: Redis
 * admits the estimate against the wallet and the key budget in one script. The charge
 * is posted after the answer went out, in batches: one transaction writes the holds of
 * the batch's calls and posts them (once per hold: a hold is posted or voided at most
 * once), then Redis learns of it. A call that runs longer than RECORD_AFTER_MS has its
 * hold written to Postgres while it runs, so its reservation outlives the reconciler's
 * orphan window; a crash then leaves a hold that expires, never a charge. A provider that reports more
 * than the estimate is charged in full when the wallet (and key budget) covers the
 * difference, which Redis admits like any hold; otherwise up to what they cover, so no
 * wallet ever goes below zero.
 */
export function createTextLedger({
  sql,
  ledger,
  log,
}: {
  sql: Sql;
  ledger: Ledger;
  log: (line: string) => void;
}) {
  const recorder = createBatcher<HoldInput, true>(
    async (holds) => {
      await sql.begin((tx) => ledger.recordHolds(tx as unknown as Sql, holds));
      return holds.map(() => ({ ok: true, value: true }));
    },
    { maxBatch: 256, concurrency: 2 },
  );

  const settleBatch = async (items: TextSettlement[]): Promise<void> => {
    const posts = items.filter((item) => item.type === "charge");
    const releases = items.filter((item) => item.type === "release");
    const staged = await sql.begin(async (raw) => {
      const tx = raw as unknown as Sql;
      // Holds of short calls are written here, with their charge. One already written was
      // this settlement's own, committed by an attempt whose answer was lost (the
      // connection dropped during COMMIT) or by the journal's recovery: it is posted as
      // `existed`, and Redis still hears of its charge.
      const unwritten = items
        .filter((item) => item.hold.recording === null)
        .map((item) => item.hold.input);
      await ledger.recordHolds(tx, unwritten, { keepExisting: true });
      for (const item of posts)
        if (item.amountQuota > item.hold.input.amountQuota)
          await tx`update holds set amount_quota = ${item.amountQuota}
                     where id = ${item.hold.input.holdId} and state = 'pending'`;
      const posted = await ledger.postMany(
        tx,
        posts
          .sort((a, b) => Number(a.hold.input.userId - b.hold.input.userId))
          .map((item) => ({
            holdId: item.hold.input.holdId,
            userId: item.hold.input.userId,
            amountQuota: item.amountQuota,
            details: item.details,
          })),
        // A flush may have let other calls spend what this call's hold reserved.
        { capToFunds: true },
      );
      const voided = await ledger.voidMany(
        tx,
        releases.map((item) => item.hold.input.holdId),
      );
      return [posted, voided];
    });
    await Promise.all(staged.map((stage) => stage.afterCommit().catch(() => {})));
    // The charge now counts in Redis; the admission of its extra is no longer needed.
    await Promise.all(posts.map((item) => item.hold.extra?.release().catch(() => {})));
    const journaled = posts.flatMap((item) => (item.journalId ? [item.journalId] : []));
    await ledger.forgetCharges(journaled).catch(() => {});
  };

  const settler = createBatcher<TextSettlement, true>(
    async (items) => {
      try {
        await withinDeadline(settleBatch(items));
        return items.map(() => ({ ok: true, value: true }));
      } catch (error) {
        // One bad item must not sink the others: each goes alone, with its own outcome.
        if (items.length === 1) return [{ ok: false, error }];
        return Promise.all(
          items.map(async (item) => {
            try {
              await withinDeadline(settleBatch([item]));
              return { ok: true as const, value: true as const };
            } catch (alone) {
              return { ok: false as const, error: alone };
            }
          }),
        );
      }
    },
    { maxBatch: 256, concurrency: 2 },
  );

  const record = (hold: TextHold) => {
    hold.timer = null;
    hold.recording = recorder.add(hold.input).then(
      async () => {
        await hold.reservation.confirm().catch(() => null);
        return true;
      },
      async (error) => {
        log(`[text] recording hold ${hold.input.holdId} failed: ${(error as Error).message}`);
        return false;
      },
    );
  };

  /** Retries a batch Postgres refused (a restart) for a while: the charge must land. */
  const settleWithRetry = async (item: TextSettlement) => {
    for (let pauseMs = 200; ; pauseMs *= 2) {
      try {
        return await settler.add(item);
      } catch (error) {
        if (pauseMs > 30_000) throw error;
        log(
          `[text] settling ${item.hold.input.holdId} failed (${(error as Error).message}); retrying in ${pauseMs} ms`,
        );
        await Bun.sleep(pauseMs);
      }
    }
  };

  return {
    /** Reserves `input` in Redis (a refusal is a value) and starts recording it in Postgres. */
    async admit(input: HoldInput): Promise<Admission> {
      const reserved = await ledger.reserve(input);
      if (!reserved.ok) {
        if (reserved.code === "exists") throw new Error(`hold ${input.holdId} exists already`);
        return reserved;
      }
      const hold: TextHold = {
        input,
        recording: null,
        timer: null,
        reservation: reserved.reservation,
      };
      hold.timer = setTimeout(() => record(hold), RECORD_AFTER_MS);
      return { ok: true, hold };
    },

    /**
     * Admits what a call costs beyond its estimate: all of it when the wallet and key
     * budget cover it, else what they cover. Answers the amount to charge.
     */
    async cover(hold: TextHold, actualQuota: bigint): Promise<bigint> {
      const extra = actualQuota - hold.input.amountQuota;
      if (extra <= 0n) return actualQuota;
      const input = { ...hold.input, holdId: `${hold.input.holdId}+`, amountQuota: extra };
      let admitted = await ledger.reserve(input);
      if (!admitted.ok && "availableQuota" in admitted && (admitted.availableQuota ?? 0n) > 0n)
        admitted = await ledger.reserve({ ...input, amountQuota: admitted.availableQuota! });
      if (!admitted.ok) return hold.input.amountQuota;
      // Kept until the charge lands, so no other call spends the same money meanwhile.
      hold.extra = admitted.reservation;
      return hold.input.amountQuota + admitted.reservation.input.amountQuota;
    },

    /**
     * Writes what an answer owes to Redis before the answer goes out, so a process that
     * dies before its batch commits leaves the charge for the worker's maintenance to post.
     */
    async journal(hold: TextHold, amountQuota: bigint, details: ChargeDetails) {
      try {
        return await ledger.journalCharge({ hold: hold.input, amountQuota, details });
      } catch (error) {
        log(
          `[text] journaling the charge of ${hold.input.holdId} failed: ${(error as Error).message}`,
        );
        return null;
      }
    },

    /** Posts or releases the call's hold; durable once this resolves. */
    async settle(item: TextSettlement): Promise<void> {
      const { hold } = item;
      if (hold.timer) clearTimeout(hold.timer);
      hold.timer = null;
      // A hold Postgres did not take while the call ran is written with its charge.
      if (hold.recording && !(await hold.recording)) hold.recording = null;
      // A call that charges nothing and left no row needs only Redis to let go.
      if (item.type === "release" && hold.recording === null) {
        await hold.reservation.release().catch(() => {});
        return;
      }
      await settleWithRetry(item);
    },
  };
}

export type TextLedger = ReturnType<typeof createTextLedger>;
