import { parseArgs } from "./options.ts";
import { formatReport } from "./report.ts";
import { runSoak } from "./soak.ts";

/**
 * `bun run soak`: a real deployment under load and injected faults, then its invariants.
 * Exits 0 when every invariant holds, 1 on any violation or when the run itself failed.
 */
const options = parseArgs(process.argv.slice(2));
console.log(
  `soak: seed ${options.seed} (repeat with --seed ${options.seed}${options.short ? " --short" : ""}${options.calls !== (options.short ? 1_000 : 10_000) ? ` --calls ${options.calls}` : ""})`,
);
try {
  const result = await runSoak(options);
  console.log(`\n${formatReport(result)}`);
  process.exit(result.checks.every((check) => check.pass) ? 0 : 1);
} catch (error) {
  console.error(`soak: the run failed (seed ${options.seed}): ${(error as Error).stack ?? error}`);
  process.exit(1);
}
