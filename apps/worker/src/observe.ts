import type { RunObserver } from "@gw/tasks";
import { type GatewayMetrics, type Logger, quotaToUsdNumber } from "@gw/telemetry";

/**
 * A task's transitions as log lines (with the request id of the call that made it) and
 * as metrics: started, then completed (with its charge), failed (with its reason), or
 * handed back at shutdown.
 */
export function runObserver(logger: Logger, metrics: GatewayMetrics): RunObserver {
  return {
    started(task, { attempt, lane }) {
      logger.info(
        {
          event: "task.started",
          task_id: task.id,
          request_id: task.request_id,
          kind: task.kind,
          model: task.model,
          key_id: task.key_id?.toString() ?? null,
          attempt,
          provider: lane,
        },
        "task started",
      );
    },
    ended(task, end) {
      const base = {
        task_id: task.id,
        request_id: task.request_id,
        kind: task.kind,
        model: task.model,
        key_id: task.key_id?.toString() ?? null,
        ...(end.upstreamMs === undefined ? {} : { upstream_ms: Math.round(end.upstreamMs) }),
      };
      if (end.upstreamMs !== undefined)
        metrics.upstreamDuration.observe(
          { kind: task.kind, model: task.model, provider: end.lane ?? "" },
          end.upstreamMs / 1000,
        );
      switch (end.outcome) {
        case "completed": {
          const charged = end.chargedQuota ?? 0n;
          metrics.tasksCompleted.inc({ kind: task.kind, model: task.model });
          metrics.spendUsd.inc(
            { model: task.model, key_id: task.key_id?.toString() ?? "" },
            quotaToUsdNumber(charged),
          );
          logger.info(
            { event: "task.completed", ...base, charged_quota: charged.toString() },
            "task completed",
          );
          return;
        }
        case "failed":
          metrics.tasksFailed.inc({
            kind: task.kind,
            model: task.model,
            reason: end.code ?? "unknown",
          });
          logger.warn(
            { event: "task.failed", ...base, code: end.code, reason: end.reason },
            "task failed",
          );
          return;
        case "handed_back":
          logger.warn({ event: "task.handed_back", ...base }, "task handed back at shutdown");
          return;
        case "lost":
          logger.info({ event: "task.lost", ...base }, "task taken over by another run");
          return;
        default:
          return;
      }
    },
  };
}
