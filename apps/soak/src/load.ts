import { type CallRecord, type ClientOptions, runCall } from "./client.ts";
import type { CallPlan } from "./load-mix.ts";

export interface LoadOptions {
  calls: number;
  concurrency: number;
  plan: (index: number) => CallPlan;
  client: ClientOptions;
  /** Told as each call starts (the fault schedule keys on it). */
  onStart: (started: number) => void;
  /** Told every `progressEvery` finished calls. */
  onProgress?: (done: number, elapsedMs: number) => void;
  progressEvery?: number;
}

/**
 * Runs the planned calls, at most `concurrency` in flight: a closed loop of that many
 * clients, each taking the next call number. Plans are made in call order, so a seed
 * gives the same calls whatever the timing.
 */
export async function runLoad(options: LoadOptions): Promise<CallRecord[]> {
  const records: CallRecord[] = new Array(options.calls);
  const plans: CallPlan[] = [];
  for (let index = 0; index < options.calls; index++) plans.push(options.plan(index));
  const began = Date.now();
  let nextIndex = 0;
  let done = 0;
  const every = options.progressEvery ?? 1_000;
  const client = async () => {
    for (;;) {
      const index = nextIndex++;
      if (index >= options.calls) return;
      options.onStart(index + 1);
      const plan = plans[index]!;
      // A call no api took for two minutes is reported as never sent, not as a crash.
      records[index] = await runCall(options.client, plan).catch(() => ({
        plan,
        userId: options.client.keys[plan.keyIndex]!.userId,
        attempts: [],
      }));
      done++;
      if (done % every === 0) options.onProgress?.(done, Date.now() - began);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, options.calls) }, client));
  return records;
}
