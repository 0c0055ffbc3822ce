import { type AdminCall, QUOTA_PER_USD, type SoakAccount } from "./accounts.ts";
import type { Deployment } from "./deployment.ts";
import { describeEvent, type ScheduledEvent } from "./fault-schedule.ts";
import type { ManagedProcess } from "./processes.ts";
import type { FaultFront } from "./upstream-faults.ts";

export interface EventLog {
  event: ScheduledEvent;
  description: string;
  startedAt: number;
  endedAt: number | null;
  /** What actually happened, when it differs from the plan (another target, a failure). */
  note: string | null;
}

/** A top-up's outcome: confirmed, or sent without an answer (it may have landed). */
export interface Credit {
  userId: string;
  quota: bigint;
  outcome: "confirmed" | "ambiguous" | "refused";
}

export interface FaultDeps {
  deployment: Deployment;
  fronts: FaultFront[];
  accounts: SoakAccount[];
  admin: (api: number) => AdminCall;
}

/** Starts a process again, retrying while it cannot start (Postgres cut, port in use). */
async function restart(process: ManagedProcess): Promise<string | null> {
  let failures = 0;
  for (;;) {
    try {
      await process.start();
      return failures > 0 ? `started on try ${failures + 1}` : null;
    } catch (error) {
      if (++failures >= 20) throw error;
      await Bun.sleep(1_000);
    }
  }
}

const upIndex = (processes: ManagedProcess[], wanted: number): number | null => {
  for (let step = 0; step < processes.length; step++) {
    const index = (wanted + step) % processes.length;
    if (processes[index]!.up) return index;
  }
  return null;
};

/**
 * Fires the scheduled events as calls start (`onCallStarted`), each in the background,
 * and keeps what each did. `settled()` waits until every fault has ended and every killed
 * process runs again.
 */
export function createFaultRunner(events: ScheduledEvent[], deps: FaultDeps) {
  const { deployment } = deps;
  const log: EventLog[] = [];
  const credits: Credit[] = [];
  const running: Promise<void>[] = [];
  let next = 0;

  const killWorker = async (entry: EventLog, wanted: number, pauseMs: number) => {
    const index = upIndex(deployment.workers, wanted);
    if (index === null) {
      entry.note = "no worker was up";
      return;
    }
    if (index !== wanted)
      entry.note = `worker-${index + 1} instead (worker-${wanted + 1} was down)`;
    const worker = deployment.workers[index]!;
    await worker.kill();
    await Bun.sleep(pauseMs);
    entry.note = [entry.note, await restart(worker)].filter(Boolean).join("; ") || null;
  };

  const killApi = async (entry: EventLog, wanted: number, pauseMs: number) => {
    // Never both at once: the other api must be up before this one goes.
    for (let waited = 0; deployment.apis.some((api) => !api.up) && waited < 60_000; waited += 200)
      await Bun.sleep(200);
    const index = upIndex(deployment.apis, wanted) ?? wanted;
    const api = deployment.apis[index]!;
    if (index !== wanted) entry.note = `api-${index + 1} instead`;
    await api.kill();
    await Bun.sleep(pauseMs);
    entry.note = [entry.note, await restart(api)].filter(Boolean).join("; ") || null;
  };

  const topUp = async (account: SoakAccount, cents: number) => {
    const api = upIndex(deployment.apis, 0) ?? 0;
    const quota = (BigInt(cents) * QUOTA_PER_USD) / 100n;
    try {
      const answer = await deps.admin(api)("POST", `/admin/users/${account.userId}/credits`, {
        amount_usd: cents / 100,
        note: "soak top-up",
      });
      await answer.body?.cancel();
      // A 5xx may come after the commit (the connection to Postgres broke on the way back).
      const outcome = answer.ok ? "confirmed" : answer.status >= 500 ? "ambiguous" : "refused";
      credits.push({ userId: account.userId, quota, outcome });
    } catch {
      credits.push({ userId: account.userId, quota, outcome: "ambiguous" });
    }
  };

  const fire = async (event: ScheduledEvent, entry: EventLog) => {
    switch (event.kind) {
      case "killWorker":
        return killWorker(entry, event.worker, event.pauseMs);
      case "killApi":
        return killApi(entry, event.api, event.pauseMs);
      case "flushRedis":
        await deployment.redis.flushdb();
        return;
      case "cutPostgres":
        deployment.relay.cut();
        await Bun.sleep(event.durationMs);
        deployment.relay.restore();
        return;
      case "stallUpstream": {
        const front = deps.fronts.find((each) => each.name === event.upstream);
        front?.stall(event.durationMs);
        await Bun.sleep(event.durationMs);
        return;
      }
      case "topUp":
        return topUp(deps.accounts[event.account]!, event.cents);
    }
  };

  return {
    log,
    credits,
    /** Call as the n-th call starts: fires every event due by then. */
    onCallStarted(started: number) {
      while (next < events.length && events[next]!.atCall <= started) {
        const event = events[next++]!;
        const entry: EventLog = {
          event,
          description: describeEvent(event),
          startedAt: Date.now(),
          endedAt: null,
          note: null,
        };
        log.push(entry);
        running.push(
          fire(event, entry).then(
            () => {
              entry.endedAt = Date.now();
            },
            (error) => {
              entry.endedAt = Date.now();
              entry.note = `failed: ${(error as Error).message.slice(0, 300)}`;
            },
          ),
        );
      }
    },
    /** Fires what is left (a run with fewer calls than planned) and waits for all of it. */
    async settled() {
      this.onCallStarted(Number.MAX_SAFE_INTEGER);
      await Promise.all(running);
    },
  };
}
