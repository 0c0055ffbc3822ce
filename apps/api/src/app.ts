import { createLedger } from "@gw/ledger";
import type { RedisClient, Sql } from "@gw/store";
import { Elysia } from "elysia";
import type { ApiConfig } from "./config.ts";
import type { AppContext } from "./context.ts";
import { docsPlugin } from "./docs/index.ts";
import { authPlugin } from "./plugins/auth.ts";
import { bodyLimitPlugin } from "./plugins/body-limit.ts";
import { closuresPlugin, EndpointClosures } from "./plugins/closures.ts";
import { errorPlugin } from "./plugins/errors.ts";
import { adminEndpointRoutes } from "./routes/admin/endpoints.ts";
import { adminKeyRoutes } from "./routes/admin/keys.ts";
import { adminUserRoutes } from "./routes/admin/users.ts";
import { balanceRoutes } from "./routes/balance/index.ts";
import { billingRoutes } from "./routes/billing/index.ts";
import { usageRoutes } from "./routes/usage/index.ts";

export interface AppDeps {
  config: ApiConfig;
  sql: Sql;
  redis: RedisClient;
}

/**
 * Builds the api from its dependencies, without listening. Tests call it with their
 * own schema and Redis prefix; main.ts with the configured ones.
 */
export async function createApp({ config, sql, redis }: AppDeps) {
  const ledger = createLedger({
    sql,
    redis,
    prefix: config.redisPrefix,
    holdTtlMs: config.holdTtlMs,
  });
  const closures = new EndpointClosures(sql, redis, `${config.redisPrefix}:endpoints:changed`);
  await closures.start();
  let paths: string[] = [];
  const context: AppContext = {
    config,
    sql,
    redis,
    ledger,
    closures,
    auth: authPlugin(sql, config.trustedProxies),
    routePaths: () => paths,
  };
  const app = new Elysia({ normalize: false })
    .use(errorPlugin)
    .use(bodyLimitPlugin(config.maxJsonBodyBytes))
    .use(closuresPlugin(closures))
    .use(docsPlugin())
    .use(balanceRoutes(context))
    .use(usageRoutes(context))
    .use(billingRoutes(context))
    .use(adminUserRoutes(context))
    .use(adminKeyRoutes(context))
    .use(adminEndpointRoutes(context));
  paths = app.routes.map((route) => route.path);
  return { app, ledger, closures, context };
}

export type GatewayApp = Awaited<ReturnType<typeof createApp>>["app"];
