import type { ImageJob } from "@gw/providers";
import type { KindResult, KindRunner, TaskRow } from "@gw/tasks";
import type { ProviderRouter, Upstream } from "../providers.ts";
import { readSources, type SourceDeps } from "../sources.ts";

/**
 * Runs the provider. A provider returns every expected failure, the network's included, as
 * a result; one that throws failed on this job's own input (a source its decoder cannot
 * take, a size its encoder refuses), so running it again fails again. That is a failure
 * value here, so the task fails in this run instead of crashing into TASK_MAX_ATTEMPTS retries.
 */
async function runProvider(upstream: Upstream, job: ImageJob) {
  try {
    return await upstream.provider.run(job);
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 300);
    return job.images.length > 0
      ? {
          ok: false as const,
          code: "source_invalid",
          message: `the source image could not be processed: ${message}`,
        }
      : { ok: false as const, code: "upstream_error", message: `the provider failed: ${message}` };
  }
}

/** How many units were produced, never more than were held for. */
function measuredVolume(task: TaskRow, files: number): number {
  const snapshot = task.price;
  return snapshot.unit === "image" ? Math.min(files, snapshot.quantity) : snapshot.quantity;
}

/**
 * The image kind: what differs from other kinds is only this: the sources it reads
 * (uploads, URLs, an earlier task), the provider call, and the volume (images made).
 * Money is hold → post/void; the engine does the rest.
 */
export function imageKind(deps: SourceDeps & { router: ProviderRouter }): KindRunner {
  return {
    lane: (task) => deps.router.route(task.model)?.provider.name ?? "unrouted",
    async run(task, signal): Promise<KindResult> {
      const upstream = deps.router.route(task.model);
      if (!upstream)
        return {
          ok: false,
          code: "upstream_unavailable",
          message: `no provider is configured for model ${task.model}`,
        };
      const sources = await readSources(deps, task, signal);
      if (!sources.ok) return { ok: false, code: sources.code, message: sources.message };
      const result = await runProvider(upstream, {
        taskId: task.id,
        model: task.model,
        upstreamModel: upstream.upstreamModel,
        operation: task.operation,
        ...(task.prompt === null ? {} : { prompt: task.prompt }),
        input: task.input,
        images: sources.images,
        signal,
      });
      if (!result.ok) return { ok: false, code: result.code, message: result.message };
      return {
        ok: true,
        files: result.files,
        volume: measuredVolume(task, result.files.length),
      };
    },
  };
}
