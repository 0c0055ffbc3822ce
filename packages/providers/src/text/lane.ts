/**
 * At most `limit` calls in flight to one upstream (`UPSTREAM_<NAME>_CONCURRENCY`); the
 * rest wait in arrival order. A freed slot goes straight to the oldest waiter, so a burst
 * cannot starve anyone. Under the limit, taking a slot is a counter increment.
 */
export interface Lane {
  readonly limit: number;
  /** Takes a slot if one is free at once. */
  tryAcquire(): boolean;
  /** Waits for a slot: true once held, false if the signal aborts or `maxWaitMs` passes first. */
  wait(signal: AbortSignal, maxWaitMs: number): Promise<boolean>;
  /** Gives back a slot taken by `tryAcquire` or a `wait` that answered true; call it once. */
  release(): void;
  active(): number;
  waiting(): number;
}

export function createLane(limit: number): Lane {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`lane limit ${limit} < 1`);
  let active = 0;
  // A Set keeps arrival order and lets an aborted waiter leave in O(1).
  const waiters = new Set<() => void>();
  return {
    limit,
    tryAcquire() {
      if (active >= limit) return false;
      active++;
      return true;
    },
    wait(signal, maxWaitMs) {
      if (active < limit) {
        active++;
        return Promise.resolve(true);
      }
      if (signal.aborted) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const leave = () => {
          waiters.delete(take);
          clearTimeout(timer);
          signal.removeEventListener("abort", leave);
          resolve(false);
        };
        // The slot is handed over without `active` changing: release() did not decrement.
        const take = () => {
          clearTimeout(timer);
          signal.removeEventListener("abort", leave);
          resolve(true);
        };
        const timer = setTimeout(leave, maxWaitMs);
        signal.addEventListener("abort", leave, { once: true });
        waiters.add(take);
      });
    },
    release() {
      const next = waiters.values().next();
      if (next.done) {
        if (active <= 0) throw new Error("lane released more often than acquired");
        active--;
        return;
      }
      waiters.delete(next.value);
      next.value();
    },
    active: () => active,
    waiting: () => waiters.size,
  };
}
