import type { Ledger } from "@gw/ledger";
import type { RedisClient, Sql } from "@gw/store";
import type { ApiConfig } from "./config.ts";
import type { authPlugin } from "./plugins/auth.ts";
import type { EndpointClosures } from "./plugins/closures.ts";

/** What every route module is built from; tests build it against their own schema and prefix. */
export interface AppContext {
  config: ApiConfig;
  sql: Sql;
  redis: RedisClient;
  ledger: Ledger;
  closures: EndpointClosures;
  auth: ReturnType<typeof authPlugin>;
  /** Paths of every route of the finished app, for validating endpoint closures. */
  routePaths: () => string[];
}
