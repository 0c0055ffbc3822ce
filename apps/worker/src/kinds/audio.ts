import type { AudioProvider, AudioTrack } from "@gw/providers";
import type { KindResult, KindRunner, TaskRow } from "@gw/tasks";
import type { ProviderRouter } from "../providers.ts";

/** What the task is billed for: seconds of audio for a per-second tariff, else one operation. */
function measuredVolume(task: TaskRow, tracks: AudioTrack[]): number {
  if (task.price.unit === "second") return tracks.reduce((sum, track) => sum + track.seconds, 0);
  return task.price.quantity;
}

/**
 * The audio kind: the provider call and the volume (seconds of speech; operations of
 * music). Money is reserve → charge → refund; the engine charges the reserve at submission
 * and refunds the unused part after the run by the stored rates.
 */
export function audioKind(deps: {
  router: ProviderRouter;
  /** Audio providers by the name PROVIDER_ROUTES routes a model to (audioProvidersFromEnv). */
  providers: Map<string, AudioProvider>;
}): KindRunner {
  return {
    lane: (task) => deps.router.routeName(task.model)?.name ?? "unrouted",
    async run(task, signal): Promise<KindResult> {
      const upstream = deps.router.routeName(task.model);
      const provider = upstream ? deps.providers.get(upstream.name) : undefined;
      if (!upstream || !provider)
        return {
          ok: false,
          code: "upstream_unavailable",
          message: `no audio provider is configured for model ${task.model}`,
        };
      let result: Awaited<ReturnType<AudioProvider["run"]>>;
      try {
        result = await provider.run({
          taskId: task.id,
          model: task.model,
          upstreamModel: upstream.upstreamModel,
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
      return {
        ok: true,
        files: result.tracks.map((track, index) => ({
          bytes: track.bytes,
          contentType: track.contentType,
          ext: track.ext,
          index,
          seconds: track.seconds,
          ...(track.name ? { name: track.name } : {}),
        })),
        volume: measuredVolume(task, result.tracks),
      };
    },
  };
}
