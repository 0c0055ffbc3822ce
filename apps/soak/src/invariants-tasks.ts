import type { Sql } from "@gw/store";
import { type Check, verdict } from "./check.ts";

/** A task with its money, as the checks of tasks and of answers read it. */
export interface TaskMoney {
  id: string;
  kind: string;
  money: string;
  status: string;
  user_id: bigint;
  request_id: string | null;
  idempotency_key: string | null;
  fail_code: string | null;
  charged_quota: bigint | null;
  charges: number;
  refunds: number;
  charged: bigint;
  refunded: bigint;
  hold_state: string | null;
}

export const TASK_MONEY = `
  select t.id, t.kind, t.money, t.status, t.user_id, t.request_id, t.idempotency_key,
         t.fail_code, t.charged_quota,
         count(e.id) filter (where e.kind = 'charge')::int as charges,
         count(e.id) filter (where e.kind = 'refund')::int as refunds,
         coalesce(-sum(e.delta_quota) filter (where e.kind = 'charge'), 0)::bigint as charged,
         coalesce(sum(e.delta_quota) filter (where e.kind = 'refund'), 0)::bigint as refunded,
         h.state as hold_state
  from tasks t
  left join ledger_entries e on e.hold_id = t.id
  left join holds h on h.id = t.id
  group by t.id, h.id order by t.created_at`;

export function loadTaskMoney(sql: Sql): Promise<TaskMoney[]> {
  return sql.unsafe<TaskMoney[]>(TASK_MONEY);
}

/** What is wrong with one task's money, or null. */
function taskProblem(task: TaskMoney): string | null {
  const what = `${task.kind} task ${task.id} (${task.status}${task.fail_code ? ` ${task.fail_code}` : ""})`;
  if (task.money === "hold") {
    if (task.refunds > 0) return `${what}: ${task.refunds} refund(s) on a hold task`;
    if (task.status === "completed") {
      if (task.charges !== 1) return `${what}: ${task.charges} charges, expected exactly 1`;
      if (task.charged !== task.charged_quota)
        return `${what}: charged ${task.charged}, the task says ${task.charged_quota}`;
      if (task.hold_state !== "posted") return `${what}: hold ${task.hold_state}, expected posted`;
    } else if (task.status === "failed") {
      if (task.charges !== 0) return `${what}: ${task.charges} charge(s) on a failed task`;
      if (task.hold_state !== "voided") return `${what}: hold ${task.hold_state}, expected voided`;
    }
    return null;
  }
  if (task.charges !== 1) return `${what}: ${task.charges} charges of the reserve, expected 1`;
  if (task.refunds > 1) return `${what}: ${task.refunds} refunds, expected at most 1`;
  const net = task.charged - task.refunded;
  if (task.status === "failed" && net !== 0n)
    return `${what}: failed but ${net} stays charged (reserve ${task.charged}, refunded ${task.refunded})`;
  if (task.status === "completed") {
    const actual = task.charged_quota ?? -1n;
    const expected = actual < task.charged ? actual : task.charged;
    if (net !== expected)
      return `${what}: net charge ${net}, expected ${expected} (reserve ${task.charged}, actual ${actual})`;
  }
  return null;
}

/** Every task reached a final state, and each carries exactly the money its outcome calls for. */
export function taskChecks(tasks: TaskMoney[]): Check[] {
  const open = tasks.filter((task) => task.status !== "completed" && task.status !== "failed");
  const moneyProblems = tasks.flatMap((task) => {
    const problem = taskProblem(task);
    return problem ? [problem] : [];
  });
  return [
    verdict(
      "every task final (completed or failed)",
      tasks.length,
      open.map((task) => `${task.kind} task ${task.id} still ${task.status}`),
      "select id, kind, status, attempts, lease_owner, lease_until, enqueued_at from tasks where status not in ('completed', 'failed')",
    ),
    verdict(
      "one charge per completed image/video task, none for failed; audio: one charge, ≤1 refund, failed nets 0",
      tasks.length,
      moneyProblems,
      TASK_MONEY,
    ),
  ];
}
