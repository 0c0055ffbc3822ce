import {
  createOfflineProvider,
  createOpenAIImagesProvider,
  createPooledFetch,
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
  names: string[];
}

function parseRoutes(text: string | undefined): [pattern: string, provider: string][] {
  if (!text?.trim()) return [];
  return text.split(",").map((entry) => {
    const [pattern, provider] = entry.split("=").map((part) => part.trim());
    if (!pattern || !provider)
      throw new Error(
        `PROVIDER_ROUTES entries are model=provider (a trailing * matches a prefix), got "${entry}"`,
      );
    return [pattern, provider];
  });
}

const matches = (pattern: string, id: string) =>
  pattern.endsWith("*") ? id.startsWith(pattern.slice(0, -1)) : pattern === id;

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
  { production = false }: { production?: boolean } = {},
): ProviderRouter {
  const routes = parseRoutes(routesText);
  for (const [pattern, name] of routes)
    if (!providers.has(name))
      throw new Error(
        `PROVIDER_ROUTES sends ${pattern} to provider "${name}", which is not configured (have: ${[...providers.keys()].join(", ")})`,
      );
  return {
    names: [...providers.keys()],
    route(modelId) {
      const model = catalog.get(modelId);
      if (!model) return null;
      const family = model.family ? catalog.get(model.family.id) : undefined;
      const routed = routes.find(([pattern]) => matches(pattern, modelId))?.[1];
      const name =
        routed ?? model.spec.upstream?.provider ?? family?.spec.upstream?.provider ?? "offline";
      if (production && name === "offline" && !routed) return null;
      const provider = providers.get(name);
      return provider ? { provider, upstreamModel: model.upstreamModel } : null;
    },
  };
}
