import type { Ledger } from "@gw/ledger";
import type { Limiter } from "@gw/ratelimit";
import type { RedisClient, Sql } from "@gw/store";
import type { Catalog } from "@gw/tariffs";
import type { ApiConfig } from "./config.ts";
import type { authPlugin } from "./plugins/auth.ts";
import type { EndpointClosures } from "./plugins/closures.ts";
import type { rateLimitPlugin } from "./plugins/rate-limit.ts";

/** What every route module is built from; tests build it against their own schema and prefix. */
export interface AppContext {
  config: ApiConfig;
  sql: Sql;
  redis: RedisClient;
  ledger: Ledger;
  /** Models, operations, input schemas and tariffs, loaded once at start. */
  catalog: Catalog;
  closures: EndpointClosures;
  auth: ReturnType<typeof authPlugin>;
  /** The `limit` macro (plugins/rate-limit.ts); a route module `.use`s it beside `auth`. */
  rateLimit: ReturnType<typeof rateLimitPlugin>;
  limiter: Limiter;
  /** Paths of every route of the finished app, for validating endpoint closures. */
  routePaths: () => string[];
}
