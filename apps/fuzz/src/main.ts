import { parseOptions, UsageError } from "./options.ts";
import { runFuzz } from "./runner.ts";
import { summarize } from "./summary.ts";

/** `bun run fuzz`: runs the cases against a fresh deployment and exits 1 on any violation. */
async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2), process.env);
  const indexes =
    options.only !== null ? [options.only] : Array.from({ length: options.cases }, (_, i) => i);
  console.log(`fuzz: seed ${options.seed} (replay with --seed ${options.seed})`);
  const report = await runFuzz({
    seed: options.seed,
    indexes,
    timeoutMs: options.timeoutMs,
    workers: options.workers,
    verbose: options.verbose,
    log: (line) => console.log(line),
  });
  console.log(`\n${summarize(report)}`);
  const failed =
    report.runViolations.length + report.results.filter((r) => r.violations.length > 0).length;
  return failed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof UsageError ? error.message : error);
    process.exit(2);
  },
);
