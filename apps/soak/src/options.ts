import { freshSeed } from "@gw/random";

/** How many faults of each kind a run injects. */
export interface FaultCounts {
  killWorker: number;
  killApi: number;
  flushRedis: number;
  cutPostgres: number;
  stallUpstream: number;
}

/** Everything a run depends on; the seed and these reproduce it. */
export interface SoakOptions {
  seed: number;
  calls: number;
  /** Calls in flight at once, over both api processes. */
  concurrency: number;
  accounts: number;
  keys: number;
  faults: FaultCounts;
  /** Faults fall between these fractions of the calls started. */
  faultWindow: [number, number];
  /** Probability that one upstream request (a generation, not a poll) is failed on purpose. */
  upstreamFaultRate: number;
  /** How long the drain may take before the invariants are checked anyway. */
  drainTimeoutMs: number;
  /** Keep the schema and Redis db after a passing run too. */
  keep: boolean;
  /** Keep them after a failing run, to look inside (the CI test does not: it would pile up). */
  keepOnFailure: boolean;
  short: boolean;
  /** The deployment's timings: short, so recovery happens within the run. */
  timings: DeploymentTimings;
}

export interface DeploymentTimings {
  taskLeaseMs: number;
  taskRequeueAfterMs: number;
  reconcileIntervalMs: number;
  holdTtlMs: number;
  imageWaitTimeoutMs: number;
  upstreamTimeoutMs: number;
  mediaqPollMs: number;
}

const TIMINGS: DeploymentTimings = {
  taskLeaseMs: 4_000,
  taskRequeueAfterMs: 3_000,
  reconcileIntervalMs: 1_000,
  holdTtlMs: 45_000,
  imageWaitTimeoutMs: 20_000,
  upstreamTimeoutMs: 5_000,
  mediaqPollMs: 150,
};

const FULL_FAULTS: FaultCounts = {
  killWorker: 4,
  killApi: 2,
  flushRedis: 2,
  cutPostgres: 2,
  stallUpstream: 3,
};
const ONE_EACH: FaultCounts = {
  killWorker: 1,
  killApi: 1,
  flushRedis: 1,
  cutPostgres: 1,
  stallUpstream: 1,
};

/** The default run (10,000 calls), or the short CI one (about 1,000, one fault of each kind). */
export function soakOptions(overrides: Partial<SoakOptions> = {}): SoakOptions {
  const short = overrides.short ?? false;
  return {
    seed: freshSeed(),
    calls: short ? 1_000 : 10_000,
    concurrency: 48,
    accounts: 50,
    keys: 200,
    faults: short ? ONE_EACH : FULL_FAULTS,
    faultWindow: short ? [0.08, 0.6] : [0.05, 0.7],
    upstreamFaultRate: 0.12,
    drainTimeoutMs: 180_000,
    keep: false,
    keepOnFailure: true,
    short,
    timings: TIMINGS,
    ...overrides,
  };
}

const USAGE = `bun run soak [--seed N] [--calls N] [--short] [--concurrency N] [--keep] [--no-faults]

  --seed N         repeat a run (the seed is printed at the start of every run)
  --calls N        paid calls to make (default 10000; --short: 1000)
  --short          the CI variant: about 1,000 calls and one fault of each kind
  --concurrency N  calls in flight at once (default 48)
  --keep           keep the Postgres schema and Redis db after a passing run too
  --no-faults      the same load with no fault at all (a baseline when a run fails)`;

/** Reads the command line; a bad flag prints the usage and exits with 2. */
export function parseArgs(argv: string[]): SoakOptions {
  const overrides: Partial<SoakOptions> = {};
  const fail = (message: string): never => {
    console.error(`soak: ${message}\n\n${USAGE}`);
    process.exit(2);
  };
  const number = (flag: string, value: string | undefined): number => {
    const parsed = Number(value);
    if (value === undefined || !Number.isInteger(parsed) || parsed < 0)
      fail(`${flag} needs a whole number`);
    return parsed;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (flag === "--short") overrides.short = true;
    else if (flag === "--keep") overrides.keep = true;
    else if (flag === "--no-faults") {
      overrides.faults = {
        killWorker: 0,
        killApi: 0,
        flushRedis: 0,
        cutPostgres: 0,
        stallUpstream: 0,
      };
      overrides.upstreamFaultRate = 0;
    } else if (flag === "--seed") overrides.seed = number(flag, argv[++i]);
    else if (flag === "--calls") overrides.calls = Math.max(1, number(flag, argv[++i]));
    else if (flag === "--concurrency") overrides.concurrency = Math.max(1, number(flag, argv[++i]));
    else if (flag === "--help" || flag === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else fail(`unknown flag ${flag}`);
  }
  return soakOptions(overrides);
}
