/**
 * Per-upstream concurrency: each lane (a provider) runs at most its limit of tasks at
 * once; the others wait in order. Waiting costs no connection and almost no memory.
 */
export class Lanes {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(
    private readonly limits: Record<string, number>,
    private readonly defaultLimit: number,
  ) {}

  limitOf(lane: string): number {
    return this.limits[lane] ?? this.defaultLimit;
  }

  async acquire(lane: string): Promise<() => void> {
    const running = this.active.get(lane) ?? 0;
    if (running < this.limitOf(lane)) {
      this.active.set(lane, running + 1);
    } else {
      await new Promise<void>((resolve) => {
        const queue = this.waiting.get(lane) ?? [];
        queue.push(resolve);
        this.waiting.set(lane, queue);
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.get(lane)?.shift();
      if (next) next();
      else this.active.set(lane, (this.active.get(lane) ?? 1) - 1);
    };
  }

  /** Tasks running and waiting per lane. */
  snapshot(): Record<string, { running: number; waiting: number }> {
    const lanes = new Set([...this.active.keys(), ...this.waiting.keys()]);
    return Object.fromEntries(
      [...lanes].map((lane) => [
        lane,
        { running: this.active.get(lane) ?? 0, waiting: this.waiting.get(lane)?.length ?? 0 },
      ]),
    );
  }
}
