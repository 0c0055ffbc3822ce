/**
 * Runs child processes and keeps them running: a child that exits on its own is started
 * again after a backoff (0.5 s, doubling up to 30 s; back to 0.5 s once a child has run
 * for a minute). Only `stop()` (the launcher's SIGINT/SIGTERM) ends them, each with
 * SIGTERM so it drains, then SIGKILL after a grace period.
 */

export interface Backoff {
  initialMs: number;
  maxMs: number;
  /** A child up this long is considered healthy: its next crash restarts after `initialMs`. */
  healthyAfterMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 500, maxMs: 30_000, healthyAfterMs: 60_000 };

export interface SupervisedChild {
  name: string;
  cmd: string[];
  env?: Record<string, string | undefined>;
}

export interface Supervisor {
  /** How many times each child has been started. */
  starts(name: string): number;
  /** The running process of a child, if it is up. */
  current(name: string): Bun.Subprocess | undefined;
  /** SIGTERM to every child, SIGKILL after `graceMs`; resolves when all have exited. */
  stop(graceMs?: number): Promise<void>;
}

/** The delay before the next start, given the last one and how long the child ran. */
export function nextDelay(previousMs: number, ranMs: number, backoff: Backoff): number {
  if (ranMs >= backoff.healthyAfterMs || previousMs === 0) return backoff.initialMs;
  return Math.min(previousMs * 2, backoff.maxMs);
}

export function supervise(
  children: SupervisedChild[],
  {
    backoff = DEFAULT_BACKOFF,
    log = (line: string) => console.error(line),
  }: { backoff?: Backoff; log?: (line: string) => void } = {},
): Supervisor {
  let stopping = false;
  const running = new Map<string, Bun.Subprocess>();
  const started = new Map<string, number>();
  const timers = new Set<ReturnType<typeof setTimeout>>();

  const start = (child: SupervisedChild, delayMs: number) => {
    const since = Date.now();
    const proc = Bun.spawn(child.cmd, {
      env: child.env ?? process.env,
      stdio: ["ignore", "inherit", "inherit"],
    });
    running.set(child.name, proc);
    started.set(child.name, (started.get(child.name) ?? 0) + 1);
    void proc.exited.then((code) => {
      running.delete(child.name);
      if (stopping) return;
      const delay = nextDelay(delayMs, Date.now() - since, backoff);
      log(
        `[start] ${child.name} exited (${proc.signalCode ?? code}); restarting in ${(delay / 1000).toFixed(1)} s`,
      );
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!stopping) start(child, delay);
      }, delay);
      timers.add(timer);
    });
  };
  for (const child of children) start(child, 0);

  return {
    starts: (name) => started.get(name) ?? 0,
    current: (name) => running.get(name),
    async stop(graceMs = 75_000) {
      stopping = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const procs = [...running.values()];
      for (const proc of procs) proc.kill("SIGTERM");
      const killer = setTimeout(() => {
        for (const proc of procs) proc.kill("SIGKILL");
      }, graceMs);
      await Promise.all(procs.map((proc) => proc.exited));
      clearTimeout(killer);
    },
  };
}
