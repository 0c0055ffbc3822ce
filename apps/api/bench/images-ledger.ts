/**
 * What the images bench reads back from its own schema: tasks settled in a measured
 * window, where each sampled request's time went (from the task rows' timestamps), and
 * the ledger check that every 200 answer was charged exactly once.
 */
import type { Sql } from "@gw/store";
import { quotaToUsd } from "@gw/tariffs";

/** A measured window in wall-clock ms (Postgres runs on the same clock). */
export interface Window {
  fromMs: number;
  toMs: number;
}

export interface Settled {
  /** Completed tasks that carry their charge, finished inside the window. */
  settled: number;
  /** Charge entries written inside the window. */
  charges: number;
}

export async function settledIn(sql: Sql, window: Window): Promise<Settled> {
  const from = new Date(window.fromMs);
  const to = new Date(window.toMs);
  const [row] = await sql<{ settled: bigint; charges: bigint }[]>`
    select
      (select count(*) from tasks t
        where t.status = 'completed' and t.finished_at >= ${from} and t.finished_at < ${to}
          and exists (select 1 from ledger_entries l where l.hold_id = t.id and l.kind = 'charge')
      ) as settled,
      (select count(*) from ledger_entries
        where kind = 'charge' and created_at >= ${from} and created_at < ${to}) as charges`;
  return { settled: Number(row!.settled), charges: Number(row!.charges) };
}

/** One gateway answer with 200: when the client sent it and when it had the body (wall ms). */
export interface Sample {
  taskId: string;
  startMs: number;
  endMs: number;
}

/** Each phase's durations (ms) over the sampled requests, ascending. */
export interface Phases {
  /** Client sends -> the task's hold transaction begins (tasks.created_at). */
  submit: Float64Array;
  /** -> a worker claims the task (started_at). */
  queue: Float64Array;
  /** -> settlement begins (finished_at is the settle transaction's time). */
  run: Float64Array;
  /** -> the client has the body. */
  answer: Float64Array;
}

/** At most this many task ids per query, to keep the parameter list bounded. */
const IDS_PER_QUERY = 5_000;

export async function phasesOf(sql: Sql, samples: Sample[]): Promise<Phases> {
  const rows: { id: string; created: number; started: number; finished: number }[] = [];
  for (let i = 0; i < samples.length; i += IDS_PER_QUERY) {
    const ids = samples.slice(i, i + IDS_PER_QUERY).map((sample) => sample.taskId);
    rows.push(
      ...(await sql<typeof rows>`
        select id,
          extract(epoch from created_at)::float8 * 1000 as created,
          extract(epoch from started_at)::float8 * 1000 as started,
          extract(epoch from finished_at)::float8 * 1000 as finished
        from tasks where id = any(${ids})`),
    );
  }
  const byId = new Map(rows.map((row) => [row.id, row]));
  const submit: number[] = [];
  const queue: number[] = [];
  const run: number[] = [];
  const answer: number[] = [];
  for (const sample of samples) {
    const row = byId.get(sample.taskId);
    if (!row) continue;
    submit.push(row.created - sample.startMs);
    queue.push(row.started - row.created);
    run.push(row.finished - row.started);
    answer.push(sample.endMs - row.finished);
  }
  const sorted = (values: number[]) => Float64Array.from(values).sort();
  return { submit: sorted(submit), queue: sorted(queue), run: sorted(run), answer: sorted(answer) };
}

interface LedgerState {
  balance: bigint;
  charges: bigint;
  chargedQuota: bigint;
  completed: bigint;
  failed: bigint;
  pendingHolds: bigint;
  active: bigint;
}

/** Sums over the whole schema: it holds only the bench's accounts. */
export async function ledgerState(sql: Sql): Promise<LedgerState> {
  const [row] = await sql<LedgerState[]>`
    select
      (select coalesce(sum(balance_quota), 0)::bigint from users) as balance,
      (select count(*) from ledger_entries where kind = 'charge') as charges,
      (select coalesce(sum(-delta_quota), 0)::bigint from ledger_entries where kind = 'charge')
        as "chargedQuota",
      (select count(*) from tasks where status = 'completed') as completed,
      (select count(*) from tasks where status = 'failed') as failed,
      (select count(*) from holds where state = 'pending') as "pendingHolds",
      (select count(*) from tasks where status in ('queued', 'processing')) as active`;
  return row!;
}

/**
 * Waits (at most `waitMs`) for running tasks to end, then checks that each 200 answer
 * is one completed task and one charge of exactly `priceQuota`, that the balances fell
 * by exactly the charges' sum, and that nothing is still held. Answers the lines to
 * print and the verdict.
 */
export async function checkLedger(
  sql: Sql,
  options: { balanceBefore: bigint; answered: number; priceQuota: bigint; waitMs: number },
): Promise<{ ok: boolean; lines: string[] }> {
  const deadline = Date.now() + options.waitMs;
  let state = await ledgerState(sql);
  while (state.active > 0n && Date.now() < deadline) {
    await Bun.sleep(100);
    state = await ledgerState(sql);
  }
  const n = BigInt(options.answered);
  const fell = options.balanceBefore - state.balance;
  const checks: [string, boolean][] = [
    [`${n} answers with 200 = ${state.charges} charge entries`, state.charges === n],
    [`${n} answers with 200 = ${state.completed} completed tasks`, state.completed === n],
    [
      `balances fell by ${fell} quota = the charges' sum ${state.chargedQuota}`,
      fell === state.chargedQuota,
    ],
    [
      `the charges' sum = ${n} x ${options.priceQuota} quota`,
      state.chargedQuota === n * options.priceQuota,
    ],
    [`${state.pendingHolds} holds still pending`, state.pendingHolds === 0n],
    [`${state.active} tasks still queued or running`, state.active === 0n],
  ];
  const ok = checks.every(([, passed]) => passed);
  const lines = [
    `ledger check: ${ok ? "OK" : "MISMATCH"} (${state.failed} failed tasks; $${quotaToUsd(fell).toFixed(3)} charged in all)`,
    ...checks.map(([text, passed]) => `  ${passed ? "ok  " : "FAIL"} ${text}`),
  ];
  return { ok, lines };
}
