import type { RedisClient } from "@gw/store";
import { type Finished, parseAnnouncement } from "./engine/announce.ts";

interface Waiter {
  check: () => void;
  /** The announcement carried the outcome: answer from it without a read. */
  finished: (outcome: Finished) => void;
  release: () => void;
}

export interface WaitOptions<T> {
  /** Read the task at once (false when the caller just created it: it cannot have finished). */
  readFirst?: boolean;
  /** Turns an announced outcome into the answer; without it an announcement triggers `read`. */
  fromAnnouncement?: (finished: Finished) => T | null;
}

export interface WaiterOptions {
  /**
   * Which of these task ids have finished, in one query. Lets every waiter re-check its
   * task at a bounded interval, so a lost announcement (a worker that died between its
   * settlement commit and its publish, a subscriber that missed it) delays an answer by
   * seconds, never for the whole wait.
   */
  finishedAmong?: (taskIds: string[]) => Promise<string[]>;
  /** How often waiters re-check; each pass waits this ±25% (jitter). */
  recheckEveryMs?: number;
  log?: (line: string) => void;
}

/** Waiting tasks one re-check pass asks about at most; the rest wait for the next pass. */
const RECHECK_BATCH = 5_000;

/**
 * Lets requests wait for their task without polling each one: one subscriber connection
 * per process hears every finished task id and wakes the requests waiting on it. Two
 * safety nets: after a reconnect every waiter checks Postgres once (announcements made
 * while the connection was down are lost), and every few seconds one query asks which
 * of all the waited-for tasks have finished.
 */
export class CompletionWaiter {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private connectedOnce = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(
    private readonly subscriber: RedisClient,
    private readonly channel: string,
    private readonly options: WaiterOptions = {},
  ) {}

  async start(): Promise<void> {
    this.subscriber.on("message", (channel: string, message: string) => {
      if (channel !== this.channel) return;
      const { id, finished } = parseAnnouncement(message);
      for (const waiter of this.waiters.get(id) ?? [])
        if (finished) waiter.finished(finished);
        else waiter.check();
    });
    this.subscriber.on("ready", () => {
      if (this.connectedOnce) {
        for (const set of this.waiters.values()) for (const waiter of set) waiter.check();
      }
      this.connectedOnce = true;
    });
    this.subscriber.on("error", () => {});
    await this.subscriber.subscribe(this.channel);
    this.connectedOnce = true;
    this.scheduleRecheck();
  }

  private scheduleRecheck(): void {
    const { finishedAmong, recheckEveryMs = 2_000 } = this.options;
    if (!finishedAmong || this.stopped) return;
    const delayMs = recheckEveryMs * (0.75 + Math.random() * 0.5);
    this.timer = setTimeout(() => void this.recheck(finishedAmong), delayMs);
    this.timer.unref?.();
  }

  private async recheck(finishedAmong: (taskIds: string[]) => Promise<string[]>) {
    try {
      const ids = [...this.waiters.keys()].slice(0, RECHECK_BATCH);
      if (ids.length > 0)
        for (const id of await finishedAmong(ids))
          for (const waiter of this.waiters.get(id) ?? []) waiter.check();
    } catch (error) {
      this.options.log?.(`[api] re-checking waiting tasks failed: ${(error as Error).message}`);
    } finally {
      this.scheduleRecheck();
    }
  }

  /**
   * Resolves with what `read` returns once it is not null: read at once (unless
   * `readFirst` is false), then again at each re-check pass; an announcement answers
   * through `fromAnnouncement` when given, else by reading. Null when `timeoutMs` passes first.
   */
  wait<T>(
    taskId: string,
    read: () => Promise<T | null>,
    timeoutMs: number,
    options: WaitOptions<T> = {},
  ): Promise<T | null> {
    return new Promise<T | null>((resolve) => {
      let settled = false;
      let reading = false;
      let again = false;
      const finish = (value: T | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const set = this.waiters.get(taskId);
        set?.delete(waiter);
        if (set?.size === 0) this.waiters.delete(taskId);
        resolve(value);
      };
      const waiter: Waiter = {
        check: () => {
          if (settled) return;
          if (reading) {
            again = true;
            return;
          }
          reading = true;
          read().then(
            (value) => {
              reading = false;
              if (value !== null) finish(value);
              else if (again) {
                again = false;
                waiter.check();
              }
            },
            () => {
              // Postgres unreachable for a moment: the next announcement or re-check
              // pass reads again; the request fails only when its wait runs out.
              reading = false;
            },
          );
        },
        finished: (outcome) => {
          if (settled) return;
          const value = options.fromAnnouncement?.(outcome) ?? null;
          if (value !== null) finish(value);
          else waiter.check();
        },
        release: () => finish(null),
      };
      const timer = setTimeout(() => finish(null), timeoutMs);
      const set = this.waiters.get(taskId) ?? new Set<Waiter>();
      this.waiters.set(taskId, set);
      set.add(waiter);
      if (options.readFirst !== false) waiter.check();
    });
  }

  get waiting(): number {
    return this.waiters.size;
  }

  /** Answers every waiter now with what its task is (finished or not): for a shutdown. */
  releaseAll(): void {
    for (const set of this.waiters.values()) for (const waiter of set) waiter.release();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.subscriber.disconnect();
  }
}
