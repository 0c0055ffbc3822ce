import { runLua, type Sql } from "@gw/store";
import { type LedgerContext, MAX_HOLD_TTL_MS } from "./context.ts";
import { appliedKey, scripts, walletKeys } from "./scripts.ts";
import { voidHold } from "./settle.ts";
import type { HoldInput, HoldRecord, HoldResult, HoldState, LedgerError } from "./types.ts";
import { loadWallet, syncKeyBudget } from "./wallet.ts";
import { closeHolds } from "./wallet-change.ts";

export interface HoldRow {
  id: string;
  user_id: bigint;
  key_id: bigint | null;
  amount_quota: bigint;
  state: HoldState;
  posted_quota: bigint | null;
  /**
   * The owner's wallet version its post set, from its charge entry (null while pending,
   * voided, or posted before versions were kept); only `readHolds` fills it.
   */
  resolved_version?: bigint | null;
  expires_at: Date;
}

/** Holds by id with the wallet version of their post, from their charge entries. */
export function readHolds(sql: Sql, ids: string[]): Promise<HoldRow[]> {
  return sql<HoldRow[]>`
    select h.*, e.wallet_version as resolved_version
    from holds h left join ledger_entries e on e.business_key = h.id || ':charge'
    where h.id = any(${ids})`;
}

export function toHoldRecord(row: HoldRow): HoldRecord {
  return {
    id: row.id,
    userId: row.user_id,
    keyId: row.key_id,
    amountQuota: row.amount_quota,
    state: row.state,
    postedQuota: row.posted_quota,
    expiresAt: row.expires_at,
  };
}

const ADMITTED = 1;
const ALREADY_OPEN = 0;
const WALLET_MISSING = -1;
const INSUFFICIENT_FUNDS = -2;
const KEY_BUDGET_EXCEEDED = -3;
const KEY_MISSING = -4;

/** Loads of a wallet one admission or confirmation may need before it gives up. */
const RELOADS = 8;

const CONFIRMED = 1;
const CONFIRMED_AFTER_REBUILD = 2;
const STATE_NEEDED = -5;

/** Reserves funds in Redis, loading the wallet or key from Postgres when Redis lacks them. */
async function admit(
  ctx: LedgerContext,
  input: HoldInput,
): Promise<[code: number, available: number, generation: string]> {
  const keys = walletKeys(ctx.prefix, input.userId);
  const args = [input.holdId, input.amountQuota, input.keyId ?? 0n, Date.now()];
  // A reload of the wallet, then of a key created after it, and a few more in case
  // Redis is flushed again between a load and the admission.
  for (let attempt = 0; attempt < RELOADS; attempt++) {
    const [code, available, generation] = (await runLua(
      ctx.redis,
      scripts.admitHold,
      keys,
      args,
    )) as [number, number, string?];
    if (code === WALLET_MISSING) {
      if (!(await loadWallet(ctx, input.userId))) return [WALLET_MISSING, 0, ""];
    } else if (code === KEY_MISSING) {
      if (!(await syncKeyBudget(ctx, input.userId, input.keyId!))) return [KEY_MISSING, 0, ""];
    } else {
      return [code, available, generation ?? ""];
    }
  }
  throw new Error(`hold ${input.holdId}: wallet of user ${input.userId} keeps missing in Redis`);
}

async function findHold(ctx: LedgerContext, holdId: string): Promise<HoldRecord | null> {
  const [row] = await ctx.sql<HoldRow[]>`select * from holds where id = ${holdId}`;
  return row ? toHoldRecord(row) : null;
}

/** A hold id Postgres already has: the caller answers with that hold instead. */
export class HoldExists extends Error {}

/** Funds reserved in Redis for a hold that Postgres has not committed yet. */
export interface Reservation {
  input: HoldInput;
  /**
   * Call once Postgres committed the hold. If Redis was rebuilt meanwhile, the hold is
   * checked again against the rebuilt wallet; a refusal then means the hold must be
   * voided (the ledger's `hold` does it; a caller of `recordHold` voids it itself).
   */
  confirm(): Promise<{ ok: true } | LedgerError>;
  /** Gives the reservation back when Postgres did not commit the hold. */
  release(): Promise<void>;
}

export type Reserved = { ok: true; reservation: Reservation } | LedgerError;

/**
 * The admission: Redis checks and reserves the amount against the wallet and the key
 * budget in one script. A refusal costs no Postgres work. The reservation is then
 * recorded in Postgres (`recordHold`) and confirmed (`reservation.confirm`).
 */
export async function reserve(
  ctx: LedgerContext,
  input: HoldInput,
): Promise<Reserved | { ok: false; code: "exists" }> {
  if (input.amountQuota < 0n) throw new RangeError("a hold cannot be negative");
  const [code, available, generation] = await admit(ctx, input);
  if (code === WALLET_MISSING) return { ok: false, code: "user_not_found" };
  if (code === KEY_MISSING) return { ok: false, code: "key_not_found" };
  if (code === INSUFFICIENT_FUNDS)
    return { ok: false, code: "insufficient_funds", availableQuota: BigInt(available) };
  if (code === KEY_BUDGET_EXCEEDED)
    return {
      ok: false,
      code: "key_budget_exceeded",
      availableQuota: BigInt(Math.max(0, available)),
    };
  if (code === ALREADY_OPEN) return { ok: false, code: "exists" };
  if (code !== ADMITTED) throw new Error(`admitHold answered unknown code ${code}`);
  const reservation: Reservation = {
    input,
    confirm: () => confirm(ctx, input, generation),
    release: async () => {
      await closeHolds(ctx, input.userId, [input.holdId]);
    },
  };
  return { ok: true, reservation };
}

/**
 * Makes sure the Redis wallet counts a committed hold. A wallet missing in Redis is
 * loaded first (it reads the committed hold from Postgres, and confirming then checks
 * it), so a rebuild that read Postgres before this commit can never write a wallet
 * without the hold after it.
 */
async function confirm(
  ctx: LedgerContext,
  input: HoldInput,
  generation: string,
): Promise<{ ok: true } | LedgerError> {
  const keys = [...walletKeys(ctx.prefix, input.userId), appliedKey(ctx.prefix, input.userId)];
  const args = [input.holdId, input.amountQuota, input.keyId ?? 0n, Date.now(), generation];
  let state: [string, bigint] = ["", 0n];
  for (let attempt = 0; attempt < RELOADS; attempt++) {
    const [code, available] = (await runLua(ctx.redis, scripts.confirmHold, keys, [
      ...args,
      ...state,
    ])) as [number, number];
    if (code === CONFIRMED || code === CONFIRMED_AFTER_REBUILD) return { ok: true };
    if (code === STATE_NEEDED) {
      state = await holdState(ctx, input.holdId);
      continue;
    }
    if (code === INSUFFICIENT_FUNDS)
      return { ok: false, code: "insufficient_funds", availableQuota: BigInt(available) };
    if (code === KEY_BUDGET_EXCEEDED)
      return {
        ok: false,
        code: "key_budget_exceeded",
        availableQuota: BigInt(Math.max(0, available)),
      };
    if (code !== WALLET_MISSING) throw new Error(`confirmHold answered unknown code ${code}`);
    if (!(await loadWallet(ctx, input.userId))) return { ok: false, code: "user_not_found" };
  }
  throw new Error(`hold ${input.holdId}: wallet of user ${input.userId} keeps missing in Redis`);
}

/** A hold's state in Postgres and the version of its post, for confirmHold-3.lua. */
async function holdState(ctx: LedgerContext, holdId: string): Promise<[string, bigint]> {
  const [row] = await readHolds(ctx.sql, [holdId]);
  // A hold with no row was never committed (a recheck of a rolled-back one): nothing to count.
  if (!row) return ["voided", 0n];
  return [row.state, row.resolved_version ?? 0n];
}

/**
 * Checks a committed hold against the wallet as Redis has it now, as a confirmation
 * after a rebuild does. The worker calls it before a task's first run: if the process
 * that admitted the hold died before confirming it, and Redis was flushed meanwhile, a
 * rebuilt wallet may count the hold without ever having checked it. In a wallet that
 * covers every hold it counts this always passes.
 */
export function recheck(ctx: LedgerContext, input: HoldInput): Promise<{ ok: true } | LedgerError> {
  return confirm(ctx, input, "");
}

/**
 * Records a reserved hold in Postgres inside the caller's transaction (`tx`). A hold id
 * Postgres already has throws `HoldExists`, so nothing the caller wrote is kept.
 */
export async function recordHold(ctx: LedgerContext, tx: Sql, input: HoldInput): Promise<HoldRow> {
  const ttlMs = Math.min(input.ttlMs ?? ctx.holdTtlMs, MAX_HOLD_TTL_MS);
  const [row] = await tx<HoldRow[]>`
    insert into holds (id, user_id, key_id, amount_quota, expires_at)
    values (${input.holdId}, ${input.userId}, ${input.keyId}, ${input.amountQuota},
            now() + ${ttlMs} * interval '1 millisecond')
    on conflict (id) do nothing
    returning *`;
  if (!row) throw new HoldExists(`hold ${input.holdId} exists already`);
  return row;
}

/**
 * `recordHold` for many holds in one statement (a group commit's holds): all are written
 * or, if any id is known already, `HoldExists` is thrown and the caller's transaction
 * keeps none of them. With `keepExisting`, a known id is left as it is instead: a caller
 * settling its own holds again after a commit whose answer was lost (the connection
 * dropped during COMMIT) finds them written, and then posts them as `existed`.
 */
export async function recordHolds(
  ctx: LedgerContext,
  tx: Sql,
  inputs: HoldInput[],
  options: { keepExisting?: boolean } = {},
): Promise<void> {
  if (inputs.length === 0) return;
  const ttl = (input: HoldInput) => Math.min(input.ttlMs ?? ctx.holdTtlMs, MAX_HOLD_TTL_MS);
  const rows = await tx<{ id: string }[]>`
    insert into holds (id, user_id, key_id, amount_quota, expires_at)
    select v.id, v.user_id, v.key_id, v.amount, now() + v.ttl * interval '1 millisecond'
    from unnest(
      ${inputs.map((input) => input.holdId)}::text[],
      ${inputs.map((input) => input.userId.toString())}::bigint[],
      ${inputs.map((input) => input.keyId?.toString() ?? null)}::bigint[],
      ${inputs.map((input) => input.amountQuota.toString())}::bigint[],
      ${inputs.map(ttl)}::bigint[]
    ) as v(id, user_id, key_id, amount, ttl)
    on conflict (id) do nothing
    returning id`;
  if (rows.length !== inputs.length && !options.keepExisting) {
    const written = new Set(rows.map((row) => row.id));
    const known = inputs.find((input) => !written.has(input.holdId));
    throw new HoldExists(`hold ${known?.holdId} exists already`);
  }
}

/**
 * Opens a hold: Redis admits it atomically against the wallet and the key budget, then
 * Postgres records it durably, then Redis confirms it. If Postgres fails, the Redis
 * reservation is released before the error is thrown, so a failed hold leaves nothing
 * behind. If Redis lost its state meanwhile and the rebuilt wallet does not cover the
 * hold, it is voided at once and refused: a flush may refuse a hold late, never admit
 * one past the balance or the key budget.
 */
export async function hold(ctx: LedgerContext, input: HoldInput): Promise<HoldResult> {
  const reserved = await reserve(ctx, input);
  if (!reserved.ok) return reserved.code === "exists" ? existingHold(ctx, input) : reserved;
  const { reservation } = reserved;
  let row: HoldRow;
  try {
    row = await recordHold(ctx, ctx.sql, input);
  } catch (error) {
    await reservation.release();
    if (error instanceof HoldExists) return existingHold(ctx, input);
    throw error;
  }
  const confirmed = await reservation.confirm();
  if (!confirmed.ok) {
    await voidHold(ctx, input.holdId);
    return confirmed;
  }
  return { ok: true, existed: false, hold: toHoldRecord(row) };
}

/** A repeated hold id answers with the hold it names, if it is the same hold. */
async function existingHold(ctx: LedgerContext, input: HoldInput): Promise<HoldResult> {
  const existing = await findHold(ctx, input.holdId);
  if (
    !existing ||
    existing.userId !== input.userId ||
    existing.keyId !== input.keyId ||
    existing.amountQuota !== input.amountQuota
  ) {
    return { ok: false, code: "hold_conflict" };
  }
  return { ok: true, existed: true, hold: existing };
}

export { findHold };
