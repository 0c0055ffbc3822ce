/** What routing reads of the catalog (the tariffs package's Catalog has it). */
export interface RoutableCatalog {
  get(id: string):
    | {
        family?: { id: string };
        spec: { upstream?: { provider: string } };
        upstreamModel: string;
      }
    | undefined;
}

/** `PROVIDER_ROUTES`: `model=provider` pairs, comma-separated; a trailing `*` matches a prefix. */
export function parseProviderRoutes(
  text: string | undefined,
): [pattern: string, provider: string][] {
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

export interface ModelRoute {
  name: string;
  upstreamModel: string;
}

/**
 * Which provider runs a model, for every kind (the worker's media, the api's text): the
 * first `PROVIDER_ROUTES` match, else the catalog's `upstream.provider` (the model's or its
 * family's), else (outside production only) the offline provider. A route may only name
 * a provider that is configured (`known`), so a typo stops the process at start. With
 * `production`, `offline` runs only where an operator routed a model to it.
 */
export function createModelRouter(
  catalog: RoutableCatalog,
  known: Iterable<string>,
  routesText: string | undefined,
  { production = false }: { production?: boolean } = {},
): (modelId: string) => ModelRoute | null {
  const routes = parseProviderRoutes(routesText);
  const names = new Set(known);
  for (const [pattern, name] of routes)
    if (!names.has(name))
      throw new Error(
        `PROVIDER_ROUTES sends ${pattern} to provider "${name}", which is not configured (have: ${[...names].join(", ")})`,
      );
  return (modelId) => {
    const model = catalog.get(modelId);
    if (!model) return null;
    const family = model.family ? catalog.get(model.family.id) : undefined;
    const routed = routes.find(([pattern]) => matches(pattern, modelId))?.[1];
    const name =
      routed ?? model.spec.upstream?.provider ?? family?.spec.upstream?.provider ?? "offline";
    if (production && name === "offline" && !routed) return null;
    return { name, upstreamModel: model.upstreamModel };
  };
}
