import type { Ledger, ReconcileReport } from "@gw/ledger";
import type { RedisClient } from "@gw/store";
import { tryLease } from "./lease.ts";

export interface MaintenanceOptions {
  ledger: Ledger;
  redis: RedisClient;
  prefix: string;
  workerId: string;
  intervalMs: number;
  log?: (line: string) => void;
  /** Further periodic jobs of the same lease (requeue from Postgres, file expiry). */
  extra?: () => Promise<string | null>;
}

/** One pass of ledger maintenance if this worker wins the lease for the period. */
export async function runMaintenance(options: MaintenanceOptions): Promise<ReconcileReport | null> {
  const leaseKey = `${options.prefix}:lease:reconcile`;
  if (!(await tryLease(options.redis, leaseKey, options.workerId, options.intervalMs))) return null;
  const report = await options.ledger.reconcile();
  const extra = options.extra ? await options.extra() : null;
  if (extra) (options.log ?? console.log)(`[worker] ${extra}`);
  const changed =
    report.expiredVoided + report.releasedInRedis + report.orphansDropped + report.walletsReloaded;
  if (changed > 0) {
    (options.log ?? console.log)(
      `[worker] reconciled: ${report.expiredVoided} expired holds voided, ${report.releasedInRedis} settled holds released in Redis, ${report.orphansDropped} orphan reservations dropped, ${report.walletsReloaded} wallets behind Postgres reloaded`,
    );
  }
  return report;
}

/** Runs maintenance every interval until stopped; a failed pass is logged and retried next period. */
export function startMaintenance(options: MaintenanceOptions): () => void {
  let stopped = false;
  const tick = async () => {
    if (stopped) return;
    try {
      await runMaintenance(options);
    } catch (error) {
      console.error("[worker] maintenance failed:", error instanceof Error ? error.message : error);
    }
    if (!stopped) timer = setTimeout(tick, options.intervalMs);
  };
  let timer = setTimeout(tick, 0);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
