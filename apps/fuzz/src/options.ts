/** What `bun run fuzz` was asked to do: flags first, then FUZZ_* variables, then defaults. */
export interface FuzzOptions {
  seed: number;
  cases: number;
  /** Run only this case (the reproduction of a violation). */
  only: number | null;
  timeoutMs: number;
  workers: number;
  /** Print every case as it runs (FUZZ_VERBOSE=1). */
  verbose: boolean;
}

export const DEFAULT_CASES = 10_000;
export const DEFAULT_TIMEOUT_MS = 10_000;

const USAGE = `usage: bun run fuzz [--seed N] [--cases N] [--case I] [--timeout-ms N] [--workers N]
  --seed N        seed of the run (FUZZ_SEED; default: random, printed)
  --cases N       cases 0..N-1 (FUZZ_CASES; default ${DEFAULT_CASES})
  --case I        only case I of the seed: what a violation's reproduction line runs
  --timeout-ms N  an answer not complete by then is a hang (default ${DEFAULT_TIMEOUT_MS})
  --workers N     worker processes (default 1)
  --verbose       print every case as it runs (FUZZ_VERBOSE=1)`;

export class UsageError extends Error {}

function wholeNumber(name: string, text: string | undefined, min: number): number {
  const value = Number(text);
  if (text === undefined || !/^\d+$/.test(text) || value < min || !Number.isSafeInteger(value))
    throw new UsageError(
      `${name} must be a whole number of at least ${min}, got "${text}"\n${USAGE}`,
    );
  return value;
}

export function parseOptions(argv: string[], env: Record<string, string | undefined>): FuzzOptions {
  const flags = new Map<string, string | undefined>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--help" || arg === "-h") throw new UsageError(USAGE);
    if (!arg.startsWith("--")) throw new UsageError(`unexpected argument "${arg}"\n${USAGE}`);
    const [name, inline] = arg.split("=", 2) as [string, string | undefined];
    flags.set(name, name === "--verbose" ? "1" : (inline ?? argv[++i]));
  }
  for (const name of flags.keys())
    if (!["--seed", "--cases", "--case", "--timeout-ms", "--workers", "--verbose"].includes(name))
      throw new UsageError(`unknown flag ${name}\n${USAGE}`);
  const seedText = flags.get("--seed") ?? env.FUZZ_SEED;
  const casesText = flags.get("--cases") ?? env.FUZZ_CASES;
  return {
    seed:
      seedText === undefined
        ? Math.floor(Math.random() * 2 ** 31)
        : wholeNumber("--seed", seedText, 0),
    cases: casesText === undefined ? DEFAULT_CASES : wholeNumber("--cases", casesText, 1),
    only: flags.has("--case") ? wholeNumber("--case", flags.get("--case"), 0) : null,
    timeoutMs: flags.has("--timeout-ms")
      ? wholeNumber("--timeout-ms", flags.get("--timeout-ms"), 100)
      : DEFAULT_TIMEOUT_MS,
    workers: flags.has("--workers") ? wholeNumber("--workers", flags.get("--workers"), 1) : 1,
    verbose: flags.has("--verbose") || env.FUZZ_VERBOSE === "1",
  };
}
