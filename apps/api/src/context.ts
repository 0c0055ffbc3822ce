import type { Ledger } from "@gw/ledger";
import type { Limiter } from "@gw/ratelimit";
import type { Storage } from "@gw/storage";
import type { RedisClient, Sql } from "@gw/store";
import type { Catalog } from "@gw/tariffs";
import type { CompletionWaiter, Submitter } from "@gw/tasks";
import type { GatewayMetrics, Logger } from "@gw/telemetry";
import type { ApiConfig } from "./config.ts";
import type { authPlugin } from "./plugins/auth.ts";
import type { EndpointClosures } from "./plugins/closures.ts";
import type { rateLimitPlugin } from "./plugins/rate-limit.ts";
import type { TextService } from "./routes/text/service.ts";

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
  /** Result files and uploaded sources (local disk or S3). */
  storage: Storage;
  /** Wakes image requests when a worker announces their task finished. */
  waiter: CompletionWaiter;
  /** The paid-task engine's submission (group-committed holds and task rows). */
  submitter: Submitter;
  /** The URL rule for client file URLs: public HTTPS, or a host the operator allowed. */
  urlCheck: (url: string) => string | null;
  /** Paths of every route of the finished app, for validating endpoint closures. */
  routePaths: () => string[];
  logger: Logger;
  metrics: GatewayMetrics;
  /** Text calls: their providers by model, and their money (hold, then charge by usage). */
  text: TextService;
  /** Set once a stop began: readiness then answers 503 so load balancers move on. */
  lifecycle: { draining: boolean };
}
