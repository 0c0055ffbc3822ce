import { offlineVideoProvider, type VideoProvider } from "@gw/providers";
import type { KindResult, KindRunner } from "@gw/tasks";
import type { ProviderRouter } from "../providers.ts";
import { readSources, type SourceDeps } from "../sources.ts";

/** Video providers by the name PROVIDER_ROUTES routes a model to. */
const VIDEO_PROVIDERS: Record<string, VideoProvider> = { offline: offlineVideoProvider };

/**
 * The video kind: sources (a first frame by URL), the provider call and the volume (seconds
 * of video made, never more than were held for). Money is hold → post / void: one charge
 * by the actual seconds × the stored rate after the result; a failure voids the hold.
 */
export function videoKind(deps: SourceDeps & { router: ProviderRouter }): KindRunner {
  return {
    lane: (task) => deps.router.route(task.model)?.provider.name ?? "unrouted",
    async run(task, signal): Promise<KindResult> {
      const upstream = deps.router.route(task.model);
      const provider = upstream ? VIDEO_PROVIDERS[upstream.provider.name] : undefined;
      if (!upstream || !provider)
        return {
          ok: false,
          code: "upstream_unavailable",
          message: `no video provider is configured for model ${task.model}`,
        };
      const sources = await readSources(deps, task, signal);
      if (!sources.ok) return { ok: false, code: sources.code, message: sources.message };
      let result: Awaited<ReturnType<VideoProvider["run"]>>;
      try {
        result = await provider.run({
          taskId: task.id,
          model: task.model,
          operation: task.operation,
          ...(task.prompt === null ? {} : { prompt: task.prompt }),
          input: task.input,
          signal,
        });
      } catch (error) {
        const message = (error instanceof Error ? error.message : String(error)).slice(0, 300);
        return { ok: false, code: "upstream_error", message: `the provider failed: ${message}` };
      }
      if (!result.ok) return result;
      const { video } = result;
      return {
        ok: true,
        files: [
          {
            bytes: video.bytes,
            contentType: video.contentType,
            ext: video.ext,
            seconds: video.seconds,
          },
        ],
        volume: Math.min(video.seconds, task.price.quantity),
      };
    },
  };
}
