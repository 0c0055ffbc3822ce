/**
 * Group commit: callers add items one at a time; items added while a flush is in flight
 * wait and go together in the next one, so under load each flush carries many items and
 * at rest an item goes at once, alone (no timer, no added latency).
 */

export interface BatchStats {
  /** How many flushes carried 1, 2-4, 5-16, 17-64, 65+ items. */
  sizes: Record<"1" | "2-4" | "5-16" | "17-64" | "65+", number>;
  flushes: number;
  items: number;
}

export interface Batcher<I, O> {
  add(item: I): Promise<O>;
  stats(): BatchStats;
}

/** What one item of a flush came to: its result, or the error that item alone gets. */
export type Outcome<O> = { ok: true; value: O } | { ok: false; error: unknown };

function bucket(size: number): keyof BatchStats["sizes"] {
  if (size === 1) return "1";
  if (size <= 4) return "2-4";
  if (size <= 16) return "5-16";
  if (size <= 64) return "17-64";
  return "65+";
}

/**
 * `flush(items)` answers one outcome per item, in order; if it throws, every item of that
 * flush gets the error. At most `concurrency` flushes run at once; up to `maxBatch` items go
 * in one.
 */
export function createBatcher<I, O>(
  flush: (items: I[]) => Promise<Outcome<O>[]>,
  { maxBatch = 256, concurrency = 1 }: { maxBatch?: number; concurrency?: number } = {},
): Batcher<I, O> {
  type Entry = { item: I; resolve: (value: O) => void; reject: (error: unknown) => void };
  let queue: Entry[] = [];
  let running = 0;
  const stats: BatchStats = {
    sizes: { "1": 0, "2-4": 0, "5-16": 0, "17-64": 0, "65+": 0 },
    flushes: 0,
    items: 0,
  };

  const pump = () => {
    while (running < concurrency && queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      running++;
      stats.flushes++;
      stats.items += batch.length;
      stats.sizes[bucket(batch.length)]++;
      flush(batch.map((entry) => entry.item))
        .then(
          (outcomes) => {
            for (const [index, entry] of batch.entries()) {
              const outcome = outcomes[index];
              if (!outcome) entry.reject(new Error("the batch answered no outcome for this item"));
              else if (outcome.ok) entry.resolve(outcome.value);
              else entry.reject(outcome.error);
            }
          },
          (error) => {
            for (const entry of batch) entry.reject(error);
          },
        )
        .finally(() => {
          running--;
          pump();
        });
    }
  };

  return {
    add(item) {
      return new Promise<O>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        pump();
      });
    },
    stats: () => structuredClone(stats),
  };
}
