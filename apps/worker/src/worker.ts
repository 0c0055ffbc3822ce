import { createLedger } from "@gw/ledger";
import { createSafeFetcher, urlPolicyFromEnv } from "@gw/safe-fetch";
import { type Storage, storageFromEnv } from "@gw/storage";
import { duplicateClient, type RedisClient, type Sql } from "@gw/store";
import { loadCatalog } from "@gw/tariffs";
import type { WorkerConfig } from "./config.ts";
import { startConsumer } from "./consumer.ts";
import { startMaintenance } from "./maintenance.ts";
import { createRouter, providersFromEnv } from "./providers.ts";
import type { RunOutcome } from "./run-task.ts";
import { deleteExpiredFiles, requeueStranded } from "./sweep.ts";

export interface WorkerDeps {
  config: WorkerConfig;
  sql: Sql;
  redis: RedisClient;
  workerId: string;
  storage?: Storage;
  log?: (line: string) => void;
  onOutcome?: (taskId: string, outcome: RunOutcome) => void;
}

/**
 * One worker: the job consumer plus the periodic maintenance (ledger reconcile,
 * requeue from Postgres, file expiry) that one worker of many runs per period.
 */
export async function startWorker(deps: WorkerDeps) {
  const { config, sql, redis, workerId } = deps;
  const log = deps.log ?? console.log;
  const catalog = await loadCatalog(config.catalogFile);
  const router = createRouter(catalog, providersFromEnv(config.env), config.env.PROVIDER_ROUTES);
  const storage = deps.storage ?? storageFromEnv(config.env, config.dataDir);
  const policy = urlPolicyFromEnv(config.env);
  const fetcher = createSafeFetcher({
    policy,
    ...(policy.caCerts ? { caCerts: policy.caCerts } : {}),
  });
  const ledger = createLedger({ sql, redis, prefix: config.prefix, holdTtlMs: config.holdTtlMs });
  const blocking = duplicateClient(redis);
  const consumer = startConsumer({
    deps: {
      sql,
      redis,
      prefix: config.prefix,
      ledger,
      storage,
      fetcher,
      catalog,
      router,
      workerId,
      leaseMs: config.leaseMs,
      maxAttempts: config.maxAttempts,
      settleRetryMs: config.holdTtlMs,
      log,
    },
    blocking,
    concurrency: config.concurrency,
    claimIdleMs: config.leaseMs,
    ...(deps.onOutcome ? { onOutcome: deps.onOutcome } : {}),
  });
  const stopMaintenance = startMaintenance({
    ledger,
    redis,
    prefix: config.prefix,
    workerId,
    intervalMs: config.reconcileIntervalMs,
    log,
    extra: async () => {
      const requeued = await requeueStranded(sql, redis, config.prefix, config.requeueAfterMs);
      const expired = await deleteExpiredFiles(sql, storage, config.linkTtlSeconds);
      if (requeued + expired === 0) return null;
      return `requeued ${requeued} stranded tasks from Postgres, deleted files of ${expired} expired tasks`;
    },
  });
  return {
    providers: router.names,
    async stop() {
      stopMaintenance();
      await consumer.stop();
      blocking.disconnect();
    },
  };
}
