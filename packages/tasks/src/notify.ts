import type { RedisClient } from "@gw/store";

/** The channel workers announce finished tasks on; every api process listens. */
export function doneChannel(prefix: string): string {
  return `${prefix}:tasks:done`;
}

export async function publishDone(redis: RedisClient, prefix: string, taskId: string) {
  await redis.publish(doneChannel(prefix), taskId);
}

interface Waiter {
  check: () => void;
}

/**
 * Lets requests wait for their task without polling: one subscriber connection per
 * process hears every finished task id and wakes the requests waiting on it. After a
 * reconnect every waiter checks Postgres once, because announcements made while the
 * connection was down are lost.
 */
export class CompletionWaiter {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private connectedOnce = false;

  constructor(
    private readonly subscriber: RedisClient,
    private readonly channel: string,
  ) {}

  async start(): Promise<void> {
    this.subscriber.on("message", (channel: string, taskId: string) => {
      if (channel !== this.channel) return;
      for (const waiter of this.waiters.get(taskId) ?? []) waiter.check();
    });
    this.subscriber.on("ready", () => {
      if (this.connectedOnce) {
        for (const set of this.waiters.values()) for (const waiter of set) waiter.check();
      }
      this.connectedOnce = true;
    });
    await this.subscriber.subscribe(this.channel);
    this.connectedOnce = true;
  }

  /**
   * Resolves with what `read` returns once it is not null: read at once, then again
   * each time the task is announced. Null when `timeoutMs` passes first.
   */
  wait<T>(taskId: string, read: () => Promise<T | null>, timeoutMs: number): Promise<T | null> {
    return new Promise<T | null>((resolve, reject) => {
      let settled = false;
      let reading = false;
      let again = false;
      const finish = (value: T | null, error?: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const set = this.waiters.get(taskId);
        set?.delete(waiter);
        if (set?.size === 0) this.waiters.delete(taskId);
        if (error !== undefined) reject(error);
        else resolve(value);
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
            (error) => {
              reading = false;
              finish(null, error);
            },
          );
        },
      };
      const timer = setTimeout(() => finish(null), timeoutMs);
      const set = this.waiters.get(taskId) ?? new Set<Waiter>();
      this.waiters.set(taskId, set);
      set.add(waiter);
      waiter.check();
    });
  }

  get waiting(): number {
    return this.waiters.size;
  }

  stop(): void {
    this.subscriber.disconnect();
  }
}
