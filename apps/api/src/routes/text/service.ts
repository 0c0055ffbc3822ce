import type { Ledger } from "@gw/ledger";
import {
  createModelRouter,
  parseProviderRoutes,
  type TextProvider,
  textProvidersFromEnv,
} from "@gw/providers";
import type { Sql } from "@gw/store";
import type { Catalog } from "@gw/tariffs";
import type { Logger } from "@gw/telemetry";
import type { ApiConfig } from "../../config.ts";
import { createTextLedger, type TextLedger } from "./money.ts";

export interface TextService {
  /** The provider a text model runs on (PROVIDER_ROUTES, then the catalog), or null. */
  route(modelId: string): { provider: TextProvider; upstreamModel: string } | null;
  ledger: TextLedger;
}

/**
 * Text calls run in the api (a client waits on, or streams, the answer): their
 * providers are built here from the same environment as the worker's media providers,
 * and routed by the same PROVIDER_ROUTES. A route naming a media-only provider (mediaq)
 * is the worker's to check; for a text model it answers 503 here.
 */
export function createTextService(deps: {
  config: ApiConfig;
  catalog: Catalog;
  sql: Sql;
  ledger: Ledger;
  logger: Logger;
}): TextService {
  const providers = textProvidersFromEnv(deps.config.env);
  const routed = parseProviderRoutes(deps.config.env.PROVIDER_ROUTES).map(([, name]) => name);
  const routeName = createModelRouter(
    deps.catalog,
    [...providers.keys(), ...routed],
    deps.config.env.PROVIDER_ROUTES,
    { production: deps.config.production },
  );
  return {
    route(modelId) {
      const route = routeName(modelId);
      const provider = route ? providers.get(route.name) : undefined;
      return route && provider ? { provider, upstreamModel: route.upstreamModel } : null;
    },
    ledger: createTextLedger({
      sql: deps.sql,
      ledger: deps.ledger,
      log: (line) => deps.logger.warn(line.replace(/^\[text\] /, "")),
    }),
  };
}
