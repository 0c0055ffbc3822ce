import { KNOWN_ISSUES } from "./known.ts";
import type { CaseResult, RunReport } from "./runner.ts";

const COLUMNS = ["cases", "2xx", "4xx", "5xx", "none", "skip", "viol"] as const;
type Column = (typeof COLUMNS)[number];

function classOf(result: CaseResult): Column {
  if (result.unsendable) return "skip";
  if (result.status === null) return "none";
  if (result.status >= 500) return "5xx";
  if (result.status >= 400) return "4xx";
  return "2xx";
}

function table(title: string, rows: Map<string, Record<Column, number>>): string[] {
  const width = Math.max(title.length, ...[...rows.keys()].map((key) => key.length));
  const line = (name: string, cells: (string | number)[]) =>
    `${name.padEnd(width)}  ${cells.map((cell) => String(cell).padStart(6)).join(" ")}`;
  const total = Object.fromEntries(COLUMNS.map((column) => [column, 0])) as Record<Column, number>;
  const out = [line(title, [...COLUMNS]), "-".repeat(width + 2 + COLUMNS.length * 7)];
  for (const [name, counts] of [...rows.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    out.push(
      line(
        name,
        COLUMNS.map((column) => counts[column]),
      ),
    );
    for (const column of COLUMNS) total[column] += counts[column];
  }
  out.push(
    "-".repeat(width + 2 + COLUMNS.length * 7),
    line(
      "total",
      COLUMNS.map((column) => total[column]),
    ),
  );
  return out;
}

function countBy(results: CaseResult[], key: (result: CaseResult) => string) {
  const rows = new Map<string, Record<Column, number>>();
  for (const result of results) {
    const name = key(result);
    const row =
      rows.get(name) ?? (Object.fromEntries(COLUMNS.map((c) => [c, 0])) as Record<Column, number>);
    row.cases++;
    row[classOf(result)]++;
    if (result.violations.length > 0) row.viol++;
    rows.set(name, row);
  }
  return rows;
}

/** The line that replays one case alone on a fresh deployment. */
export const reproduction = (seed: number, index: number) =>
  `bun run fuzz --seed ${seed} --case ${index}`;

/** Every violation, one line each, with the command that reproduces it. */
export function violationLines(report: RunReport): string[] {
  const lines: string[] = [];
  for (const result of report.results)
    for (const violation of result.violations)
      lines.push(
        `[${violation.kind}] case ${result.index}: ${result.operation} as ${result.role} [${result.mutation}] -> ${result.status ?? "no answer"}: ${violation.detail}\n    request: ${result.request}\n    reproduce: ${reproduction(report.seed, result.index)}`,
      );
  for (const violation of report.runViolations)
    lines.push(`[${violation.kind}] run: ${violation.detail}`);
  return lines;
}

/** Known issues outside the api, counted but not failing the run (see known.ts). */
function knownLines(report: RunReport): string[] {
  const counts = new Map<string, number[]>();
  for (const result of report.results)
    for (const name of result.known) counts.set(name, [...(counts.get(name) ?? []), result.index]);
  return [...counts.entries()].map(([name, cases]) => {
    const why = KNOWN_ISSUES.find((issue) => issue.name === name)?.why ?? "";
    return `known, not counted: ${name} in ${cases.length} cases (e.g. case ${cases[0]}): ${why}`;
  });
}

/** The printed report: cases by endpoint and status class, by mutation family, then violations. */
export function summarize(report: RunReport): string {
  const family = (result: CaseResult) =>
    result.mutation.split(":").slice(0, 2).join(":").split(" ")[0]!;
  const violations = violationLines(report);
  const slowest = [...report.results].sort((a, b) => b.ms - a.ms)[0];
  return [
    `fuzz report: seed ${report.seed}, ${report.results.length} cases in ${Math.round(report.elapsedMs / 1000)} s` +
      (slowest ? ` (slowest answer ${slowest.ms} ms, case ${slowest.index})` : ""),
    "",
    ...table(
      "endpoint",
      countBy(report.results, (result) => result.operation),
    ),
    "",
    ...table("mutation", countBy(report.results, family)),
    "",
    ...knownLines(report),
    violations.length === 0 ? "violations: none" : `violations: ${violations.length}`,
    ...violations,
  ].join("\n");
}
