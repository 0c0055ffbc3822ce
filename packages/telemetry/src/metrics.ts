import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** Seconds: sync paid calls wait for their upstream, so the tail reaches minutes. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Seconds: the gateway's own share of a call, from a fraction of a millisecond up. */
const OVERHEAD_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

/** A scrape-time reading (queue depth, holds open), filled in by the process that owns it. */
export type Collect = () => Promise<void> | void;

/**
 * The gateway's metrics, in one registry per process (a test may build several apps in
 * one process, so nothing goes into prom-client's global registry). Names follow the
 * ones LiteLLM users know (requests, spend, total and overhead latency) with a
 * `gateway_` prefix; label sets stay small and never carry a secret (a key is its id).
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<"route" | "method" | "status" | "model" | "key_id">;
  readonly requestDuration: Histogram<"route" | "method" | "model">;
  readonly overhead: Histogram<"route" | "model">;
  readonly tasksSubmitted: Counter<"kind" | "model">;
  readonly tasksCompleted: Counter<"kind" | "model">;
  readonly tasksFailed: Counter<"kind" | "model" | "reason">;
  readonly upstreamDuration: Histogram<"kind" | "model" | "provider">;
  readonly queueDepth: Gauge<"partition">;
  readonly queueOldestAge: Gauge<"partition">;
  readonly settlementBatchSize: Histogram;
  readonly settlementDuration: Histogram;
  readonly spendUsd: Counter<"model" | "key_id">;
  readonly holdsOpen: Gauge;
  readonly limiterRefusals: Counter<"group">;
  readonly backendErrors: Counter<"backend">;
  private readonly collectors: Collect[] = [];

  constructor(service: string) {
    const registers = [this.registry];
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: "gateway_requests_total",
      help: "HTTP requests answered, by route pattern, method, status, model and key id",
      labelNames: ["route", "method", "status", "model", "key_id"],
      registers,
    });
    this.requestDuration = new Histogram({
      name: "gateway_request_duration_seconds",
      help: "Time from a request's arrival to its answer (total latency)",
      labelNames: ["route", "method", "model"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.overhead = new Histogram({
      name: "gateway_overhead_duration_seconds",
      help: "The gateway's own share of a paid call: total latency minus the upstream's time",
      labelNames: ["route", "model"],
      buckets: OVERHEAD_BUCKETS,
      registers,
    });
    this.tasksSubmitted = new Counter({
      name: "gateway_tasks_submitted_total",
      help: "Paid tasks accepted (price held) and queued",
      labelNames: ["kind", "model"],
      registers,
    });
    this.tasksCompleted = new Counter({
      name: "gateway_tasks_completed_total",
      help: "Paid tasks that completed and were charged",
      labelNames: ["kind", "model"],
      registers,
    });
    this.tasksFailed = new Counter({
      name: "gateway_tasks_failed_total",
      help: "Paid tasks that failed (nothing charged), by reason code",
      labelNames: ["kind", "model", "reason"],
      registers,
    });
    this.upstreamDuration = new Histogram({
      name: "gateway_upstream_duration_seconds",
      help: "Time a task spent with its upstream provider (gen_ai.client.operation.duration)",
      labelNames: ["kind", "model", "provider"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.queueDepth = new Gauge({
      name: "gateway_queue_depth",
      help: "Jobs waiting or running in a stream partition (undelivered plus unacknowledged)",
      labelNames: ["partition"],
      registers,
    });
    this.queueOldestAge = new Gauge({
      name: "gateway_queue_oldest_job_age_seconds",
      help: "Age of the oldest job not yet acknowledged in a stream partition",
      labelNames: ["partition"],
      registers,
    });
    this.settlementBatchSize = new Histogram({
      name: "gateway_settlement_batch_size",
      help: "Tasks settled in one ledger transaction",
      buckets: BATCH_BUCKETS,
      registers,
    });
    this.settlementDuration = new Histogram({
      name: "gateway_settlement_duration_seconds",
      help: "Time one settlement batch took (ledger transaction and wallet update)",
      buckets: OVERHEAD_BUCKETS,
      registers,
    });
    this.spendUsd = new Counter({
      name: "gateway_spend_usd_total",
      help: "Money charged, in USD, by model and key id",
      labelNames: ["model", "key_id"],
      registers,
    });
    this.holdsOpen = new Gauge({
      name: "gateway_holds_open",
      help: "Holds placed and not yet posted or voided (money reserved for tasks in flight)",
      registers,
    });
    this.limiterRefusals = new Counter({
      name: "gateway_rate_limit_refusals_total",
      help: "Requests refused by a rate limiter, by limiter group",
      labelNames: ["group"],
      registers,
    });
    this.backendErrors = new Counter({
      name: "gateway_backend_errors_total",
      help: "Failed calls to Redis or Postgres",
      labelNames: ["backend"],
      registers,
    });
    // Bring the backend counters into being at 0, so an alert on their rate has a series.
    this.backendErrors.inc({ backend: "redis" }, 0);
    this.backendErrors.inc({ backend: "postgres" }, 0);
  }

  /** Adds a reading taken at each scrape; a failing one leaves its gauges as they were. */
  onCollect(collect: Collect): void {
    this.collectors.push(collect);
  }

  /** The Prometheus text exposition, after the scrape-time readings. */
  async expose(): Promise<{ body: string; contentType: string }> {
    await Promise.all(
      this.collectors.map(async (collect) => {
        try {
          await collect();
        } catch {
          // A reading that fails (Redis cut) keeps its last value; the error counter says why.
        }
      }),
    );
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}

/** Quota to USD for the spend counter (1 USD = 500,000 quota). */
export function quotaToUsdNumber(quota: bigint): number {
  return Number(quota) / 500_000;
}
