import type { Sql } from "@gw/store";
import { type Check, verdict } from "./check.ts";
import type { Attempt, CallRecord } from "./client.ts";
import type { TaskMoney } from "./invariants-tasks.ts";
import { isText } from "./load-mix.ts";

/*
 * The answers the clients got against what the ledger holds: every 200 charged exactly
 * once, nothing charged for a refusal, nothing in the ledger that no call asked for.
 */

export const TEXT_CHARGES = `
  select request_id, count(*)::int as charges, -sum(delta_quota)::bigint as quota
  from ledger_entries where kind = 'charge' and hold_id like 'txt\\_%'
  group by request_id`;

interface TextCharge {
  request_id: string | null;
  charges: number;
  quota: bigint;
}

export interface CallCheckInput {
  records: CallRecord[];
  tasks: TaskMoney[];
  /** SIGKILL times of each api process. */
  apiKills: number[][];
}

/** A text charge is journaled before the last bytes; a crash just after may still lose it. */
const CRASH_MARGIN_MS = 5_000;

const diedDuring = (kills: number[][], attempt: Attempt) =>
  (kills[attempt.api] ?? []).some(
    (at) => at >= attempt.startedAt && at <= attempt.endedAt + CRASH_MARGIN_MS,
  );

const label = (record: CallRecord, attempt: Attempt) =>
  `call ${record.plan.index} ${record.plan.kind}${record.plan.stream ? " (stream)" : ""} ${attempt.requestId}`;

/** What is wrong with a 200 answer, or null. */
function okProblem(
  record: CallRecord,
  attempt: Attempt,
  tasks: Map<string, TaskMoney>,
  textCharges: Map<string, TextCharge>,
  kills: number[][],
): string | null {
  const what = `${label(record, attempt)} answered 200`;
  const { kind } = record.plan;
  if (isText(kind)) {
    const charges = textCharges.get(attempt.requestId)?.charges ?? 0;
    if (charges === 1) return null;
    if (charges === 0 && diedDuring(kills, attempt)) return null;
    return `${what} (${attempt.stream ?? "json"}): ${charges} charges`;
  }
  const task = attempt.taskId ? tasks.get(attempt.taskId) : undefined;
  if (!task) return `${what}: task ${attempt.taskId} not found (lost)`;
  if (kind === "image" || kind === "image_edit") {
    if (task.status !== "completed") return `${what}: task ${task.id} is ${task.status}`;
    if (task.charges !== 1) return `${what}: task ${task.id} has ${task.charges} charges`;
    if (attempt.billedQuota !== null && attempt.billedQuota !== task.charged)
      return `${what}: billed ${attempt.billedQuota} in the answer, charged ${task.charged}`;
    return null;
  }
  if (kind === "speech" || kind === "music")
    return task.charges === 1 ? null : `${what}: task ${task.id} has ${task.charges} charges`;
  const expected = task.status === "completed" ? 1 : 0;
  return task.charges === expected
    ? null
    : `${what}: ${task.status} video ${task.id} has ${task.charges} charges`;
}

/** What is wrong with an answer other than 200, or null: it must cost nothing. */
function refusedProblem(
  record: CallRecord,
  attempt: Attempt,
  tasks: Map<string, TaskMoney>,
  tasksByRequest: Map<string, TaskMoney>,
  textCharges: Map<string, TextCharge>,
): string | null {
  const what = `${label(record, attempt)} answered ${attempt.status} ${attempt.code ?? ""}`.trim();
  if (isText(record.plan.kind)) {
    const charges = textCharges.get(attempt.requestId)?.charges ?? 0;
    return charges === 0 ? null : `${what}: charged ${charges} time(s)`;
  }
  if (attempt.code === "task_pending" || attempt.code === "idempotency_conflict") return null;
  if (attempt.taskId) {
    const task = tasks.get(attempt.taskId);
    if (!task) return `${what}: its task ${attempt.taskId} does not exist`;
    if (task.status !== "failed") return `${what}: its task ${task.id} is ${task.status}`;
    return task.charged - task.refunded === 0n
      ? null
      : `${what}: failed task ${task.id} nets ${task.charged - task.refunded}`;
  }
  const made = tasksByRequest.get(attempt.requestId);
  // A refusal after a Redis flush ("refused late") leaves a failed task that costs nothing.
  if (!made || (made.status === "failed" && made.charged === made.refunded)) return null;
  return `${what} without a task id, yet it made ${made.kind} task ${made.id} (${made.status}, charged ${made.charged - made.refunded})`;
}

/** The checks of answers against the ledger. */
export async function callChecks(sql: Sql, input: CallCheckInput): Promise<Check[]> {
  const textRows = await sql.unsafe<TextCharge[]>(TEXT_CHARGES);
  const textCharges = new Map(textRows.map((row) => [row.request_id ?? "", row]));
  const tasks = new Map(input.tasks.map((task) => [task.id, task]));
  const tasksByRequest = new Map<string, TaskMoney>();
  const attempts = input.records.flatMap((record) =>
    record.attempts.map((attempt) => ({ record, attempt })),
  );
  const sent = new Set(attempts.map(({ attempt }) => attempt.requestId));

  const ok: string[] = [];
  const refused: string[] = [];
  const orphans: string[] = [];
  for (const task of input.tasks) {
    const id = task.request_id ?? "";
    if (!sent.has(id)) orphans.push(`${task.kind} task ${task.id}: request ${id} was never sent`);
    else if (tasksByRequest.has(id))
      orphans.push(`request ${id} made two tasks: ${tasksByRequest.get(id)!.id} and ${task.id}`);
    tasksByRequest.set(id, task);
  }
  for (const row of textRows) {
    if (!sent.has(row.request_id ?? ""))
      orphans.push(`text charge for unknown request ${row.request_id}`);
    else if (row.charges > 1)
      orphans.push(`request ${row.request_id}: ${row.charges} text charges`);
  }
  let answered = 0;
  for (const { record, attempt } of attempts) {
    if (attempt.status === null) continue;
    answered++;
    const problem =
      attempt.status === 200
        ? okProblem(record, attempt, tasks, textCharges, input.apiKills)
        : refusedProblem(record, attempt, tasks, tasksByRequest, textCharges);
    if (problem) (attempt.status === 200 ? ok : refused).push(problem);
  }
  const okCount = attempts.filter(({ attempt }) => attempt.status === 200).length;
  return [
    verdict("every 200 answer has exactly one charge (no task lost)", okCount, ok, TEXT_CHARGES),
    verdict("every refused or failed answer costs nothing", answered - okCount, refused),
    verdict(
      "every task and charge comes from a call, once (no double charge)",
      input.tasks.length + textRows.length,
      orphans,
    ),
    idempotencyCheck(input.records),
  ];
}

/** 200 answers to one Idempotency-Key (its first call and resends) name one task. */
function idempotencyCheck(records: CallRecord[]): Check {
  const seen = new Map<string, Set<string>>();
  for (const record of records) {
    const key = record.plan.idempotencyKey;
    if (!key) continue;
    for (const attempt of record.attempts)
      if (attempt.status === 200 && attempt.taskId) {
        const ids = seen.get(`${record.userId}/${key}`) ?? new Set<string>();
        ids.add(attempt.taskId);
        seen.set(`${record.userId}/${key}`, ids);
      }
  }
  const split = [...seen.entries()].filter(([, ids]) => ids.size > 1);
  return verdict(
    "one task per Idempotency-Key, however often it is sent",
    seen.size,
    split.map(([key, ids]) => `${key}: tasks ${[...ids].join(", ")}`),
  );
}
