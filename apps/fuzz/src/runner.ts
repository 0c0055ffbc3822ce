import { type FuzzCase, generateCase } from "./cases.ts";
import { fetchCatalog } from "./catalog.ts";
import { checkAnswer, checkState, type Violation } from "./checks.ts";
import { Client } from "./client.ts";
import { describeRequest } from "./draft.ts";
import { finalChecks } from "./final-checks.ts";
import { createFixture } from "./fixture.ts";
import { knownIssueOf } from "./known.ts";
import { fetchOperations } from "./openapi.ts";
import { type Outcome, send } from "./send.ts";
import { NO_WORK, SETTLE_LIMIT_MS, settle } from "./settle.ts";
import { diffSnapshots, type Snapshot, takeSnapshot } from "./snapshot.ts";
import { type FuzzStack, startFuzzStack } from "./stack.ts";
import type { World } from "./world.ts";

export interface RunOptions {
  seed: number;
  /** Case indexes to run, in order (`0..cases-1`, or the one `--case`). */
  indexes: number[];
  /** A case whose answer has not ended by then is a hang. */
  timeoutMs: number;
  workers?: number;
  /** Progress lines; silent when not given. */
  log?: (line: string) => void;
  /** Log every case, not just violations. */
  verbose?: boolean;
}

export interface CaseResult {
  index: number;
  operation: string;
  mutation: string;
  role: string;
  status: number | null;
  unsendable: boolean;
  ms: number;
  violations: Violation[];
  /** Violations that are known issues outside the api (see known.ts), by issue name. */
  known: string[];
  /** The request in one line; kept only for cases with violations. */
  request: string | null;
}

export interface RunReport {
  seed: number;
  results: CaseResult[];
  /** Problems of the run itself, not of one case: a process died, work never settled. */
  runViolations: Violation[];
  elapsedMs: number;
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/** After an admin case closed an endpoint, every other case would meet a designed 503. */
async function reopenEndpoints(client: Client): Promise<void> {
  const list = await client.admin("GET", "/admin/endpoints");
  const data = (list.body as { data?: { path: string }[] }).data ?? [];
  for (const { path } of data)
    await client.admin("PUT", `/admin/endpoints/${encodeURIComponent(path)}`, { closed: false });
}

/** Whether the api answers its liveness probe within a couple of seconds. */
async function responsive(url: string): Promise<boolean> {
  try {
    const answer = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) });
    await answer.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

async function runOne(
  stack: FuzzStack,
  world: World,
  fuzzCase: FuzzCase,
  before: Snapshot,
  timeoutMs: number,
): Promise<{ outcome: Outcome; violations: Violation[]; after: Snapshot; moved: boolean }> {
  const outcome = await send(stack.url, fuzzCase.request, timeoutMs);
  if (outcome.unsendable) return { outcome, violations: [], after: before, moved: false };
  const violations = checkAnswer(world, fuzzCase, outcome);
  const after = await takeSnapshot(stack.store);
  const changes = diffSnapshots(before, after);
  violations.push(...checkState(fuzzCase, outcome, changes));
  const accepted =
    outcome.status !== null && outcome.status < 400 && !SAFE.has(fuzzCase.request.method);
  return {
    outcome,
    violations,
    after,
    moved: accepted || changes.length > 0 || outcome.status === null,
  };
}

/** Sets up a deployment and the scene, runs the cases one by one, and tears it down. */
export async function runFuzz(options: RunOptions): Promise<RunReport> {
  const started = performance.now();
  const log = options.log ?? (() => {});
  const stack = await startFuzzStack({ workers: options.workers ?? 1 });
  const results: CaseResult[] = [];
  const runViolations: Violation[] = [];
  try {
    const fixture = await createFixture(stack.url, stack.store.sql);
    const world: World = {
      operations: await fetchOperations(stack.url),
      catalog: await fetchCatalog(stack.url, fixture.a.key),
      fixture,
    };
    log(
      `fuzz: seed ${options.seed}, ${options.indexes.length} cases over ${world.operations.length} operations`,
    );
    let before = await takeSnapshot(stack.store);
    // Work reported stuck is not waited for again (each later case would wait the limit).
    let tolerated = NO_WORK;
    for (const index of options.indexes) {
      const fuzzCase = generateCase(world, options.seed, index);
      const run = await runOne(stack, world, fuzzCase, before, options.timeoutMs);
      const { outcome, after } = run;
      const known: string[] = [];
      const violations = run.violations.filter((violation) => {
        const issue = knownIssueOf(fuzzCase, outcome, violation);
        if (issue) known.push(issue);
        return issue === null;
      });
      results.push({
        index,
        operation: fuzzCase.operation,
        mutation: fuzzCase.mutation,
        role: fuzzCase.role,
        status: outcome.status,
        unsendable: outcome.unsendable,
        ms: outcome.ms,
        violations,
        known,
        request: violations.length > 0 ? describeRequest(fuzzCase.request) : null,
      });
      if (options.verbose)
        log(
          `case ${index} ${fuzzCase.operation} as ${fuzzCase.role} [${fuzzCase.mutation}] -> ${outcome.status ?? outcome.error} ${outcome.ms} ms ${outcome.body.slice(0, 160).replace(/\s+/g, " ")}`,
        );
      for (const violation of violations)
        log(
          `VIOLATION case ${index} ${fuzzCase.operation} [${fuzzCase.mutation}] ${violation.kind}: ${violation.detail}`,
        );
      let moved = run.moved;
      if (outcome.status === null && !stack.api.exited() && !(await responsive(stack.url))) {
        runViolations.push({
          kind: "unresponsive",
          detail: `the api stopped answering at case ${index}; restarted it`,
        });
        log(`fuzz: the api stopped answering at case ${index}; restarting it`);
        await stack.restartApi();
        moved = true;
      }
      if (stack.api.exited()) {
        runViolations.push({
          kind: "crash",
          detail: `the api exited during case ${index}:\n${stack.api.output().slice(-2000)}`,
        });
        break;
      }
      if (fuzzCase.operation.startsWith("PUT /admin/endpoints") && outcome.status === 200)
        await reopenEndpoints(new Client(stack.url));
      before = after;
      if (moved) {
        const open = await settle(stack.store, tolerated);
        if (open) {
          runViolations.push({
            kind: "stuck",
            detail: `after case ${index}: ${open.tasks} tasks unfinished, ${open.holds} holds pending, ${open.redisHolds} open in Redis for ${SETTLE_LIMIT_MS} ms`,
          });
          tolerated = open;
        }
        before = await takeSnapshot(stack.store);
      }
      if (results.length % 500 === 0)
        log(
          `fuzz: ${results.length}/${options.indexes.length} cases, ${Math.round((performance.now() - started) / 1000)} s`,
        );
    }
    // After work reported stuck, the ledger checks would only repeat that report.
    if (!stack.api.exited() && tolerated === NO_WORK && (await settle(stack.store)) === null)
      runViolations.push(...(await finalChecks(stack.store)));
    const dead = stack.workers.find((worker) => worker.exited());
    if (dead)
      runViolations.push({
        kind: "crash",
        detail: `a worker exited:\n${dead.output().slice(-2000)}`,
      });
  } finally {
    await stack.stop();
  }
  return { seed: options.seed, results, runViolations, elapsedMs: performance.now() - started };
}
