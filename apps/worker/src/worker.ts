import { countOpenHolds, createLedger, rollSpendDays } from "@gw/ledger";
import { textProvidersFromEnv } from "@gw/providers";
import { createSafeFetcher, urlPolicyFromEnv } from "@gw/safe-fetch";
import { type Storage, storageFromEnv } from "@gw/storage";
import { checkBackends, type RedisClient, type Sql } from "@gw/store";
import { loadCatalog } from "@gw/tariffs";
import {
  createSettler,
  deleteExpiredFiles,
  findTask,
  Lanes,
  queueStats,
  type RunOutcome,
  requeueStranded,
  startConsumer,
  taskEvent,
} from "@gw/tasks";
import { createLogger, GatewayMetrics, type Logger } from "@gw/telemetry";
import { deliverDue } from "@gw/webhooks";
import type { WorkerConfig } from "./config.ts";
import { startProbeServer } from "./http.ts";
import { audioKind } from "./kinds/audio.ts";
import { imageKind } from "./kinds/image.ts";
import { videoKind } from "./kinds/video.ts";
import { startMaintenance } from "./maintenance.ts";
import { runObserver } from "./observe.ts";
import { audioProvidersFromEnv, createRouter, providersFromEnv } from "./providers.ts";

export interface WorkerDeps {
  config: WorkerConfig;
  sql: Sql;
  redis: RedisClient;
  workerId: string;
  storage?: Storage;
  /** Structured log lines; a silent logger when not given. */
  logger?: Logger;
  /** Plain lines (tests collect them); through the logger when not given. */
  log?: (line: string) => void;
  metrics?: GatewayMetrics;
  onOutcome?: (taskId: string, outcome: RunOutcome) => void;
}

/**
 * One worker: the paid-task engine's consumer with this process's kinds (image), plus
 * the periodic maintenance (ledger reconcile, requeue from Postgres, file expiry) that
 * one worker of many runs per period.
 */
export async function startWorker(deps: WorkerDeps) {
  const { config, sql, redis, workerId } = deps;
  const logger = deps.logger ?? createLogger({ service: "worker", level: "silent" });
  const log = deps.log ?? ((line: string) => logger.info(line.replace(/^\[[a-z]+\] /, "")));
  const metrics = deps.metrics ?? new GatewayMetrics("worker");
  const redisErrors = () => metrics.backendErrors.inc({ backend: "redis" });
  redis.on("error", redisErrors);
  const catalog = await loadCatalog(config.catalogFile);
  const lanes = new Lanes(config.laneLimits, config.laneDefault);
  const providers = providersFromEnv(config.env, (name) => lanes.limitOf(name));
  const audioProviders = audioProvidersFromEnv(config.env, (name) => lanes.limitOf(name));
  const router = createRouter(catalog, providers, config.env.PROVIDER_ROUTES, {
    production: config.env.NODE_ENV === "production",
    // Routes may name text providers too (the api runs text calls); they are not the worker's.
    otherProviders: [...audioProviders.keys(), ...textProvidersFromEnv(config.env).keys()],
  });
  const storage = deps.storage ?? storageFromEnv(config.env, config.dataDir);
  const policy = urlPolicyFromEnv(config.env);
  const fetcher = createSafeFetcher({
    policy,
    ...(policy.caCerts ? { caCerts: policy.caCerts } : {}),
  });
  const ledger = createLedger({ sql, redis, prefix: config.prefix, holdTtlMs: config.holdTtlMs });
  const settler = createSettler({
    storage,
    sql,
    redis,
    prefix: config.prefix,
    ledger,
    log,
    onBatch: (size, ms) => {
      metrics.settlementBatchSize.observe(size);
      metrics.settlementDuration.observe(ms / 1000);
    },
  });
  const consumer = startConsumer({
    run: {
      sql,
      ledger,
      storage,
      settler,
      lanes,
      kinds: {
        image: imageKind({ sql, storage, fetcher, catalog, router }),
        audio: audioKind({ router, providers: audioProviders }),
        video: videoKind({ sql, storage, fetcher, catalog, router }),
      },
      workerId,
      leaseMs: config.leaseMs,
      maxAttempts: config.maxAttempts,
      settleRetryMs: config.holdTtlMs,
      log,
      observer: runObserver(logger, metrics),
      backendError: (backend) => metrics.backendErrors.inc({ backend }),
    },
    redis,
    prefix: config.prefix,
    partitions: config.partitions,
    capacity: config.concurrency,
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
      const requeued = await requeueStranded(
        sql,
        redis,
        config.prefix,
        config.partitions,
        config.requeueAfterMs,
      );
      const expired = await deleteExpiredFiles(sql, storage, config.linkTtlSeconds);
      const days = await rollSpendDays(sql);
      // Charges an api owed for answers it gave but died before posting (text calls).
      const owed = await ledger.recoverCharges(OWED_CHARGE_AFTER_MS);
      if (requeued + expired + days + owed === 0) return null;
      return `requeued ${requeued} stranded tasks from Postgres, deleted files of ${expired} expired tasks, summed ${days} closed days of spend, posted ${owed} charges an api left owed`;
    },
  });
  const stopWebhooks = startWebhookDelivery(
    config,
    () =>
      deliverDue({
        sql,
        fetcher,
        payloadOf: async (taskId) => {
          const task = await findTask(sql, taskId);
          return task ? taskEvent(task) : null;
        },
        retryBaseMs: config.webhookRetryBaseMs,
        maxAttempts: config.webhookMaxAttempts,
        log,
      }),
    log,
  );
  metrics.onCollect(async () => {
    for (const stats of await queueStats(redis, config.prefix, config.partitions)) {
      metrics.queueDepth.set({ partition: String(stats.partition) }, stats.depth);
      metrics.queueOldestAge.set({ partition: String(stats.partition) }, stats.oldestAgeMs / 1000);
    }
  });
  metrics.onCollect(async () => metrics.holdsOpen.set(await countOpenHolds(sql)));
  let stopping = false;
  const ready = async () => ({
    ...(await checkBackends(sql, redis)),
    catalog: catalog.models.length > 0 ? "ok" : "no models",
    jobs: stopping ? "stopping" : "ok",
  });
  const probes =
    config.httpPort >= 0
      ? startProbeServer({ port: config.httpPort, metrics, ready, logger })
      : null;
  return {
    providers: router.names,
    settlementBatches: () => settler.stats(),
    metrics,
    ready,
    /** Where /metrics, /healthz and /readyz answer. */
    probeUrl: probes ? `http://127.0.0.1:${probes.port}` : null,
    /** Jobs running now. */
    running: () => consumer.running(),
    /**
     * Stops taking jobs, lets running ones finish for up to `graceMs` (the configured
     * grace period by default), hands back the rest, then stops the periodic jobs.
     */
    async stop(graceMs = config.shutdownGraceMs) {
      stopping = true;
      stopMaintenance();
      await Promise.all([stopWebhooks(), consumer.stop(graceMs)]);
      redis.off("error", redisErrors);
      void probes?.stop(true);
    },
  };
}

/**
 * An owed charge older than this was left by an api that died before posting it. Well
 * under the reconciler's orphan window (60 s), so the posting, not the orphan drop,
 * settles the dead api's Redis reservation.
 */
const OWED_CHARGE_AFTER_MS = 20_000;

/** Sends due webhook deliveries every WEBHOOK_POLL_MS, one pass at a time. */
function startWebhookDelivery(
  config: WorkerConfig,
  pass: () => Promise<number>,
  log: (line: string) => void,
): () => Promise<void> {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const tick = async () => {
    if (stopped) return;
    running = pass().catch((error) =>
      log(`[webhooks] delivery pass failed: ${error instanceof Error ? error.message : error}`),
    );
    await running;
    if (!stopped) timer = setTimeout(tick, config.webhookPollMs);
  };
  let timer = setTimeout(tick, config.webhookPollMs);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
