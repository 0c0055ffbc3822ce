import {
  type AudioProvider,
  createModelRouter,
  createOfflineProvider,
  createOpenAIImagesProvider,
  createOpenAISpeechProvider,
  createPooledFetch,
  createQueueMediaProvider,
  offlineAudioProvider,
  type Provider,
} from "@gw/providers";
import type { Catalog } from "@gw/tariffs";

export interface Upstream {
  provider: Provider;
  upstreamModel: string;
}

/** Which provider runs which model: `PROVIDER_ROUTES` over the catalog's `upstream.provider`. */
export interface ProviderRouter {
  route(modelId: string): Upstream | null;
  /** The provider name a model is routed to, whatever kind of provider it is. */
  routeName(modelId: string): { name: string; upstreamModel: string } | null;
  names: string[];
}

/**
 * The configured providers: the built-in offline one always, OpenAI-compatible when set.
 * An HTTP provider's connection pool is its lane limit (`laneLimit(name)`), so calls in
 * flight are bounded per upstream, not by the runtime.
 */
export function providersFromEnv(
  env: Record<string, string | undefined>,
  laneLimit: (name: string) => number = () => 2048,
): Map<string, Provider> {
  const providers = new Map<string, Provider>([["offline", createOfflineProvider()]]);
  const baseUrl = env.UPSTREAM_OPENAI_BASE_URL;
  if (baseUrl) {
    if (!env.UPSTREAM_OPENAI_API_KEY)
      throw new Error("UPSTREAM_OPENAI_BASE_URL is set but UPSTREAM_OPENAI_API_KEY is not");
    providers.set(
      "openai",
      createOpenAIImagesProvider({
        name: "openai",
        baseUrl,
        apiKey: env.UPSTREAM_OPENAI_API_KEY,
        timeoutMs: Number(env.UPSTREAM_TIMEOUT_MS || 300_000),
        maxAttempts: Number(env.UPSTREAM_MAX_ATTEMPTS || 3),
        fetch: createPooledFetch({ maxSockets: laneLimit("openai") }),
      }),
    );
  }
  return providers;
}

/**
 * Which provider runs a model: the first `PROVIDER_ROUTES` match, else the catalog's
 * `upstream.provider`, else (outside production only) the offline provider. With
 * `production`, `offline` runs only where an operator routed a model to it, so a model
 * with no configured provider fails its task `upstream_unavailable`, nothing charged.
 */
export function createRouter(
  catalog: Catalog,
  providers: Map<string, Provider>,
  routesText: string | undefined,
  {
    production = false,
    otherProviders = [],
  }: {
    production?: boolean;
    /** Providers of other kinds (audio) that routes may name too. */
    otherProviders?: string[];
  } = {},
): ProviderRouter {
  const known = new Set([...providers.keys(), ...otherProviders]);
  const routeName = createModelRouter(catalog, known, routesText, { production });
  return {
    names: [...known],
    routeName,
    route(modelId) {
      const routed = routeName(modelId);
      const provider = routed ? providers.get(routed.name) : undefined;
      return provider && routed ? { provider, upstreamModel: routed.upstreamModel } : null;
    },
  };
}

/**
 * Audio providers: the offline one always; OpenAI-compatible speech at the same
 * UPSTREAM_OPENAI_BASE_URL as images; a queue-style media API (fal.ai's queue shape) as
 * `mediaq` when UPSTREAM_MEDIAQ_BASE_URL and UPSTREAM_MEDIAQ_API_KEY are set.
 */
export function audioProvidersFromEnv(
  env: Record<string, string | undefined>,
  laneLimit: (name: string) => number = () => 2048,
): Map<string, AudioProvider> {
  const providers = new Map<string, AudioProvider>([["offline", offlineAudioProvider]]);
  const timeoutMs = Number(env.UPSTREAM_TIMEOUT_MS || 300_000);
  if (env.UPSTREAM_OPENAI_BASE_URL && env.UPSTREAM_OPENAI_API_KEY)
    providers.set(
      "openai",
      createOpenAISpeechProvider({
        baseUrl: env.UPSTREAM_OPENAI_BASE_URL,
        apiKey: env.UPSTREAM_OPENAI_API_KEY,
        timeoutMs,
        fetch: createPooledFetch({ maxSockets: laneLimit("openai") }),
      }),
    );
  if (env.UPSTREAM_MEDIAQ_BASE_URL) {
    if (!env.UPSTREAM_MEDIAQ_API_KEY)
      throw new Error("UPSTREAM_MEDIAQ_BASE_URL is set but UPSTREAM_MEDIAQ_API_KEY is not");
    providers.set(
      "mediaq",
      createQueueMediaProvider({
        name: "mediaq",
        baseUrl: env.UPSTREAM_MEDIAQ_BASE_URL,
        apiKey: env.UPSTREAM_MEDIAQ_API_KEY,
        pollMs: Number(env.UPSTREAM_MEDIAQ_POLL_MS || 2_000),
        timeoutMs: Math.max(timeoutMs, 600_000),
        fetch: createPooledFetch({ maxSockets: laneLimit("mediaq") }),
      }),
    );
  }
  return providers;
}
