import type { Random } from "@gw/random";
import type { FaultCounts } from "./options.ts";

export type FaultKind = keyof FaultCounts;

/** One fault (or a wallet top-up, which is load, not a fault) at a point of the run. */
export type ScheduledEvent =
  | { kind: "killWorker"; atCall: number; worker: number; pauseMs: number }
  | { kind: "killApi"; atCall: number; api: number; pauseMs: number }
  | { kind: "flushRedis"; atCall: number }
  | { kind: "cutPostgres"; atCall: number; durationMs: number }
  | { kind: "stallUpstream"; atCall: number; upstream: string; durationMs: number }
  | { kind: "topUp"; atCall: number; account: number; cents: number };

const UPSTREAMS = ["openai", "anthropic", "gemini", "mediaq"];

/**
 * The run's events from the seed, placed by call count (the n-th call started), not by
 * time, so one seed gives the same schedule on a fast or a slow machine. api kills fall
 * in the first half of the fault window: the reservations a killed api leaves in Redis
 * are dropped by the reconciler a minute later, which should happen before the drain.
 */
export function planEvents(
  random: Random,
  options: {
    calls: number;
    faults: FaultCounts;
    window: [number, number];
    workers: number;
    apis: number;
    dryAccounts: number[];
    topUps: number;
  },
): ScheduledEvent[] {
  const [from, to] = options.window;
  const at = (lo: number, hi: number) =>
    Math.floor(options.calls * (lo + random.next() * (hi - lo)));
  const events: ScheduledEvent[] = [];
  const { faults } = options;
  for (let i = 0; i < faults.killWorker; i++)
    events.push({
      kind: "killWorker",
      atCall: at(from, to),
      worker: random.int(0, options.workers - 1),
      pauseMs: random.int(1_000, 6_000),
    });
  for (let i = 0; i < faults.killApi; i++)
    events.push({
      kind: "killApi",
      atCall: at(from, (from + to) / 2),
      api: random.int(0, options.apis - 1),
      pauseMs: random.int(500, 2_500),
    });
  for (let i = 0; i < faults.flushRedis; i++)
    events.push({ kind: "flushRedis", atCall: at(from, to) });
  for (let i = 0; i < faults.cutPostgres; i++)
    events.push({
      kind: "cutPostgres",
      atCall: at(from, to),
      durationMs: random.int(2_000, 6_000),
    });
  for (let i = 0; i < faults.stallUpstream; i++)
    events.push({
      kind: "stallUpstream",
      atCall: at(from, to),
      upstream: random.pick(UPSTREAMS),
      durationMs: random.int(3_000, 9_000),
    });
  if (options.dryAccounts.length > 0)
    for (let i = 0; i < options.topUps; i++)
      events.push({
        kind: "topUp",
        atCall: at(0.1, 0.9),
        account: random.pick(options.dryAccounts),
        cents: random.int(50, 300),
      });
  return events.sort((a, b) => a.atCall - b.atCall);
}

/** One line per event, for the report and for reproducing a run by hand. */
export function describeEvent(event: ScheduledEvent): string {
  switch (event.kind) {
    case "killWorker":
      return `SIGKILL worker-${event.worker + 1}, restart after ${event.pauseMs} ms`;
    case "killApi":
      return `SIGKILL api-${event.api + 1}, restart after ${event.pauseMs} ms`;
    case "flushRedis":
      return "FLUSHDB of the soak's Redis db";
    case "cutPostgres":
      return `cut Postgres at the relay for ${event.durationMs} ms`;
    case "stallUpstream":
      return `stall the ${event.upstream} upstream for ${event.durationMs} ms`;
    case "topUp":
      return `credit $${(event.cents / 100).toFixed(2)} to dry account #${event.account}`;
  }
}
