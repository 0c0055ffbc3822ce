import type { Check } from "./check.ts";
import type { Attempt, CallRecord } from "./client.ts";
import type { DrainResult } from "./drain.ts";
import type { Credit, EventLog } from "./faults.ts";
import type { TaskMoney } from "./invariants-tasks.ts";
import type { SoakOptions } from "./options.ts";
import type { FaultFront } from "./upstream-faults.ts";

export interface SoakResult {
  options: SoakOptions;
  records: CallRecord[];
  events: EventLog[];
  credits: Credit[];
  fronts: FaultFront[];
  tasks: TaskMoney[];
  checks: Check[];
  drain: DrainResult;
  /** Milliseconds since the run began of each phase's end. */
  timings: { setupMs: number; loadMs: number; drainMs: number; checkMs: number };
  beganAt: number;
  schema: string;
  redisDb: number;
  runDir: string;
  kept: boolean;
  money: { credits: bigint; charges: bigint; refunds: bigint };
}

const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

/** What one attempt came to, in a word: its status and code, or why there was none. */
export function outcomeOf(attempt: Attempt): string {
  if (attempt.aborted) return attempt.status === 200 ? "200 then client left" : "client left";
  if (attempt.status === null) {
    if (attempt.error === "refused") return "no answer: refused";
    return attempt.error === "timed out" ? "no answer: timed out" : "no answer: connection lost";
  }
  if (attempt.status === 200)
    return attempt.stream && attempt.stream !== "complete" ? `200 stream ${attempt.stream}` : "200";
  return `${attempt.status} ${attempt.code ?? ""}`.trim();
}

function table(title: string, rows: [string, string | number][]): string[] {
  const width = Math.max(...rows.map(([name]) => name.length), 10);
  return [title, ...rows.map(([name, value]) => `  ${name.padEnd(width)}  ${value}`)];
}

function sorted(map: Map<string, number>): [string, number][] {
  return [...map.entries()].sort((a, b) => b[1] - a[1]);
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const usd = (quota: bigint) => `$${(Number(quota) / 500_000).toFixed(2)}`;

function callLines(records: CallRecord[]): string[] {
  const byKind = new Map<string, Map<string, number>>();
  const refusals = new Map<string, number>();
  const examples = new Map<string, Set<string>>();
  const example = (reason: string, text: string) => {
    const seen = examples.get(reason) ?? new Set<string>();
    if (seen.size < 3) seen.add(text.slice(0, 160));
    examples.set(reason, seen);
  };
  const retryReasons = new Map<string, number>();
  let attempts = 0;
  for (const record of records) {
    if (!record) continue;
    const kind = `${record.plan.kind}${record.plan.stream ? "+stream" : ""}`;
    const final = record.attempts.at(-1);
    const outcomes = byKind.get(kind) ?? new Map<string, number>();
    count(outcomes, final ? outcomeOf(final) : "never sent");
    byKind.set(kind, outcomes);
    attempts += record.attempts.length;
    record.attempts.forEach((attempt, index) => {
      if (attempt.status !== null && attempt.status !== 200) {
        count(refusals, outcomeOf(attempt));
        if (attempt.message)
          example(
            outcomeOf(attempt),
            `${record.plan.kind} ${attempt.requestId}: ${attempt.message}`,
          );
      }
      if (attempt.status === null && attempt.error && !attempt.aborted)
        example(outcomeOf(attempt), `${record.plan.kind}: ${attempt.error}`);
      if (index < record.attempts.length - 1) count(retryReasons, outcomeOf(attempt));
    });
  }
  const lines = [`Calls: ${records.length} planned, ${attempts} HTTP attempts`];
  for (const [kind, outcomes] of [...byKind.entries()].sort()) {
    const total = [...outcomes.values()].reduce((sum, n) => sum + n, 0);
    const parts = sorted(outcomes).map(([outcome, n]) => `${outcome} ${n}`);
    lines.push(`  ${kind.padEnd(16)} ${String(total).padStart(5)}  ${parts.join(", ")}`);
  }
  const retries = [...retryReasons.values()].reduce((sum, n) => sum + n, 0);
  lines.push(...table(`Retries: ${retries}, after`, sorted(retryReasons)));
  for (const [reason, texts] of examples)
    if (reason.startsWith("no answer")) for (const text of texts) lines.push(`      e.g. ${text}`);
  lines.push("Refusals and failures (every non-200 answer), by reason, with an example");
  for (const [reason, n] of sorted(refusals)) {
    lines.push(`  ${reason.padEnd(28)} ${String(n).padStart(5)}`);
    for (const text of examples.get(reason) ?? []) lines.push(`      e.g. ${text}`);
  }
  return lines;
}

function eventLines(result: SoakResult): string[] {
  const lines = ["Faults injected (and top-ups), by call number and time into the load"];
  const faults = new Map<string, number>();
  for (const entry of result.events) {
    if (entry.event.kind !== "topUp") count(faults, entry.event.kind);
    const at = seconds(entry.startedAt - result.beganAt - result.timings.setupMs);
    const note = entry.note ? ` (${entry.note})` : "";
    lines.push(
      `  #${String(entry.event.atCall).padStart(5)}  +${at.padStart(8)}  ${entry.description}${note}`,
    );
  }
  lines.push(
    `  by kind: ${sorted(faults)
      .map(([kind, n]) => `${kind} ${n}`)
      .join(", ")}`,
  );
  const credits = result.credits.map((credit) => credit.outcome);
  lines.push(
    `  top-ups: ${credits.length} (${credits.filter((c) => c === "confirmed").length} confirmed)`,
  );
  lines.push("Upstream requests by what the fault front did");
  for (const front of result.fronts) {
    const parts = sorted(new Map([...front.counts.entries()].map(([k, v]) => [String(k), v])));
    lines.push(`  ${front.name.padEnd(10)} ${parts.map(([what, n]) => `${what} ${n}`).join(", ")}`);
  }
  return lines;
}

function taskLines(tasks: TaskMoney[]): string[] {
  const byKind = new Map<string, number>();
  for (const task of tasks)
    count(byKind, `${task.kind} ${task.status}${task.fail_code ? ` (${task.fail_code})` : ""}`);
  return table(`Tasks: ${tasks.length}`, sorted(byKind));
}

function checkLines(checks: Check[]): string[] {
  const lines = ["Invariants"];
  for (const check of checks) {
    lines.push(`  ${check.pass ? "PASS" : "FAIL"}  ${check.name}  [${check.checked} checked]`);
    if (check.pass) continue;
    for (const violation of check.violations) lines.push(`          - ${violation}`);
    if (check.violationCount > check.violations.length)
      lines.push(`          … ${check.violationCount - check.violations.length} more`);
    if (check.sql) lines.push(`          SQL: ${check.sql}`);
  }
  return lines;
}

/** The report a run prints: counts, the schedule, and every invariant with PASS/FAIL. */
export function formatReport(result: SoakResult): string {
  const { options, timings, drain } = result;
  const failed = result.checks.filter((check) => !check.pass).length;
  const lines = [
    `Soak seed ${options.seed}: ${options.calls} calls, ${options.concurrency} in flight, ${options.accounts} accounts, ${options.keys} keys${options.short ? " (short)" : ""}`,
    `  setup ${seconds(timings.setupMs)}, load ${seconds(timings.loadMs - timings.setupMs)}, drain ${seconds(drain.ms)}${drain.converged ? "" : " (did NOT converge)"}, checks ${seconds(timings.checkMs - timings.drainMs)}`,
    `  money: credits ${usd(result.money.credits)}, charges ${usd(result.money.charges)}, refunds ${usd(result.money.refunds)}`,
    "",
    ...callLines(result.records),
    "",
    ...eventLines(result),
    "",
    ...taskLines(result.tasks),
    "",
    ...checkLines(result.checks),
    "",
    failed === 0
      ? `PASS: all ${result.checks.length} invariants hold (seed ${options.seed})`
      : `FAIL: ${failed} of ${result.checks.length} invariants broken (seed ${options.seed})`,
  ];
  if (result.kept)
    lines.push(
      `  kept: schema ${result.schema} (set search_path to ${result.schema}), Redis db ${result.redisDb}, logs ${result.runDir}`,
      `  clean up: psql -c 'drop schema ${result.schema} cascade'; redis-cli -n ${result.redisDb} flushdb`,
    );
  return lines.join("\n");
}
