// Proves the fuzzer's CI variant: 1,000 seeded cases over every endpoint of a real
// deployment answer 2xx or 4xx, in the one error shape, within 10 s, and no refused call
// moves money, tasks or history. A failure lists each violation with its reproduction.
import { expect, test } from "bun:test";
import { runFuzz } from "./runner.ts";
import { summarize, violationLines } from "./summary.ts";

/** Fixed, so CI runs the same cases every time; FUZZ_SEED tries others locally. */
const SEED = Number(process.env.FUZZ_SEED ?? 16);
const CASES = Number(process.env.FUZZ_CI_CASES ?? 1_000);

test(
  `${CASES} fuzz cases of seed ${SEED} find no violation`,
  async () => {
    const report = await runFuzz({
      seed: SEED,
      indexes: Array.from({ length: CASES }, (_, index) => index),
      timeoutMs: 10_000,
    });
    const violations = violationLines(report);
    if (violations.length > 0) console.log(summarize(report));
    expect(report.results.length).toBe(CASES);
    expect(violations).toEqual([]);
  },
  15 * 60_000,
);
