// Proves the short soak (issue 16): a real deployment (2 api, 3 worker processes) takes
// about 1,000 paid calls of every kind while one fault of each kind strikes (a worker and
// an api SIGKILLed, Redis flushed, Postgres cut, an upstream stalled) and upstreams fail
// at random; afterwards every wallet equals its ledger, no hold is left, every task is
// final and charged as its outcome says, and every 200 answer is exactly one charge.
// SOAK_SEED repeats a run; `bun run soak --short --seed N` runs the same by hand.
import { beforeAll, describe, expect, test } from "bun:test";
import { soakOptions } from "./options.ts";
import { formatReport, type SoakResult } from "./report.ts";
import { runSoak } from "./soak.ts";

const seed = Number(process.env.SOAK_SEED ?? 16);
let result: SoakResult;

beforeAll(async () => {
  result = await runSoak(
    soakOptions({ short: true, seed, drainTimeoutMs: 120_000, keepOnFailure: false }),
    () => {},
  );
  console.log(formatReport(result));
}, 420_000);

const isRedis = (name: string) => name.startsWith("Redis wallets");
const broken = (filter: (name: string) => boolean) =>
  result.checks
    .filter((check) => filter(check.name) && !check.pass)
    .map((check) => ({ name: check.name, violations: check.violations }));

describe(`short soak, seed ${seed}`, () => {
  test("the load ran and each fault kind struck once", () => {
    expect(result.records.length).toBe(1_000);
    const kinds = result.events.map((entry) => entry.event.kind).filter((kind) => kind !== "topUp");
    expect(kinds.sort()).toEqual([
      "cutPostgres",
      "flushRedis",
      "killApi",
      "killWorker",
      "stallUpstream",
    ]);
    expect(result.events.filter((entry) => entry.note?.startsWith("failed"))).toEqual([]);
    expect(result.drain.converged).toBe(true);
  });

  test("every ledger, task and answer invariant holds", () => {
    expect(broken((name) => !isRedis(name))).toEqual([]);
  });

  test("Redis wallets equal Postgres after reconciliation", () => {
    expect(broken(isRedis)).toEqual([]);
  });
});
