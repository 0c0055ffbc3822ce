import { PrincipalCache } from "@gw/accounts";
import { createLedger } from "@gw/ledger";
import { createUrlCheck, urlPolicyFromEnv } from "@gw/safe-fetch";
import { storageFromEnv } from "@gw/storage";
import { duplicateClient, type RedisClient, type Sql } from "@gw/store";
import { loadCatalog } from "@gw/tariffs";
import { CompletionWaiter, createSubmitter, doneChannel, finishedAmong } from "@gw/tasks";
import { createLogger, GatewayMetrics, type Logger } from "@gw/telemetry";
import { Elysia } from "elysia";
import type { ApiConfig } from "./config.ts";
import type { AppContext } from "./context.ts";
import { docsPlugin } from "./docs/index.ts";
import { observeFetch, wrapFetch } from "./observe/access.ts";
import { noteRequest } from "./observe/request-context.ts";
import { authPlugin } from "./plugins/auth.ts";
import { bodyPlugin } from "./plugins/body/index.ts";
import { closuresPlugin, EndpointClosures } from "./plugins/closures.ts";
import { corsPlugin } from "./plugins/cors.ts";
import { errorPlugin } from "./plugins/errors.ts";
import { createRateLimiting } from "./plugins/rate-limit.ts";
import { requestUrlPlugin } from "./plugins/request-url.ts";
import { adminEndpointRoutes } from "./routes/admin/endpoints.ts";
import { ADMIN_PREFIX, checkAdminToken } from "./routes/admin/guard.ts";
import { adminKeyRoutes } from "./routes/admin/keys.ts";
import { adminListRoutes } from "./routes/admin/lists.ts";
import { adminUserRoutes } from "./routes/admin/users.ts";
import { audioRoutes } from "./routes/audio/index.ts";
import { balanceRoutes } from "./routes/balance/index.ts";
import { billingRoutes } from "./routes/billing/index.ts";
import { compatRoutes } from "./routes/compat/index.ts";
import { fileRoutes } from "./routes/files/index.ts";
import { healthRoutes } from "./routes/health/index.ts";
import { imageRoutes } from "./routes/images/index.ts";
import { EDIT_BODY } from "./routes/images/multipart.ts";
import { mediaCatalogRoutes } from "./routes/media/catalog.ts";
import { QUOTE_MAX_BODY_BYTES, quoteRoutes } from "./routes/media/quote.ts";
import { generateContentModelRoutes } from "./routes/models/generate-content.ts";
import { modelRoutes } from "./routes/models/index.ts";
import { msgcompatModelRoutes } from "./routes/models/msgcompat.ts";
import {
  GENERATE_CONTENT_AUTH,
  GENERATE_CONTENT_PATHS,
  MESSAGES_PATHS,
  textRoutes,
} from "./routes/text/index.ts";
import { createTextService } from "./routes/text/service.ts";
import { COUNT_TOKENS_AUTH, COUNT_TOKENS_PATHS, countTokensRoutes } from "./routes/tokens/index.ts";
import { usageRoutes } from "./routes/usage/index.ts";
import { VIDEO_BODY } from "./routes/video/body.ts";
import { VIDEO_CREATE_PATHS, videoRoutes } from "./routes/video/index.ts";

export interface AppDeps {
  config: ApiConfig;
  sql: Sql;
  redis: RedisClient;
  /** Structured log lines; silent when not given (tests pass a capturing one). */
  logger?: Logger;
}

/** How the body gate reads a route's key: message-API routes take `x-api-key` too. */
const apiKeyRoutes = new Set<string>([...COUNT_TOKENS_PATHS, ...MESSAGES_PATHS]);
const contentKeyRoutes = new Set<string>(GENERATE_CONTENT_PATHS);
function bodyAuth(route: string) {
  if (contentKeyRoutes.has(route)) return GENERATE_CONTENT_AUTH;
  return apiKeyRoutes.has(route) ? COUNT_TOKENS_AUTH : undefined;
}

/**
 * Builds the api from its dependencies, without listening. Tests call it with their
 * own schema and Redis prefix; main.ts with the configured ones.
 */
export async function createApp({ config, sql, redis, logger: given }: AppDeps) {
  const logger = given ?? createLogger({ service: "api", level: "silent" });
  const metrics = new GatewayMetrics("api");
  redis.on("error", () => metrics.backendErrors.inc({ backend: "redis" }));
  const catalog = await loadCatalog(config.catalogFile);
  const ledger = createLedger({
    sql,
    redis,
    prefix: config.redisPrefix,
    holdTtlMs: config.holdTtlMs,
  });
  const storage = storageFromEnv(config.env, config.dataDir);
  const waiter = new CompletionWaiter(duplicateClient(redis), doneChannel(config.redisPrefix), {
    finishedAmong: (ids) => finishedAmong(sql, ids),
    log: (line) => logger.warn(line.replace(/^\[api\] /, "")),
  });
  await waiter.start();
  const closures = new EndpointClosures(sql, redis, `${config.redisPrefix}:endpoints:changed`);
  await closures.start();
  let paths: string[] = [];
  const principals = new PrincipalCache(config.authCacheMs);
  const rateLimiting = createRateLimiting(config, redis);
  const context: AppContext = {
    config,
    sql,
    redis,
    ledger,
    catalog,
    closures,
    auth: authPlugin(sql, config.trustedProxies, rateLimiting.keyRpm, {
      paths: new Set([
        "/v1/images/generations",
        "/v1/images/edits",
        "/v1/chat/completions",
        "/v1/responses",
        ...MESSAGES_PATHS,
      ]),
      cache: principals,
    }),
    rateLimit: rateLimiting.plugin,
    limiter: rateLimiting.limiter,
    storage,
    waiter,
    submitter: createSubmitter({
      sql,
      redis,
      ledger,
      storage,
      prefix: config.redisPrefix,
      partitions: config.jobPartitions,
      log: (line) => logger.warn(line.replace(/^\[[a-z]+\] /, "")),
    }),
    urlCheck: createUrlCheck(urlPolicyFromEnv(config.env)),
    routePaths: () => paths,
    logger,
    metrics,
    text: createTextService({ config, catalog, sql, ledger, logger }),
    lifecycle: { draining: false },
  };
  // Every request goes through one fetch handler (Bun's own router would answer routes
  // directly), so each one gets its request id, access line and metrics.
  const app = new Elysia({ normalize: false, systemRouter: false })
    // Preflights are answered before anything else runs (no key, no body on an OPTIONS).
    .use(corsPlugin(config.corsOrigins))
    .use(errorPlugin)
    .onTransform({ as: "global" }, ({ route }) => noteRequest({ route }))
    // An admin change (a key disabled, a user's access) reaches paid calls at once.
    .onAfterHandle({ as: "global" }, ({ request }) => {
      if (request.method !== "GET" && new URL(request.url).pathname.startsWith(ADMIN_PREFIX))
        principals.clear();
    })
    .use(requestUrlPlugin)
    .use(
      bodyPlugin({
        maxBytes: config.maxJsonBodyBytes,
        routes: {
          "/v1/media/quote": { maxBytes: QUOTE_MAX_BODY_BYTES },
          "/v1/images/edits": EDIT_BODY,
          ...Object.fromEntries(VIDEO_CREATE_PATHS.map((path) => [path, VIDEO_BODY])),
        },
        // Credentials before any body is read: the admin token under /admin/, an ordinary
        // key on every other route that takes a body (spec 5; all of them are paid calls).
        gate: ({ request, route, server }) =>
          route.startsWith(ADMIN_PREFIX)
            ? checkAdminToken(config.adminToken, request)
            : context.auth.requireKey(request, server, bodyAuth(route)),
      }),
    )
    .use(closuresPlugin(closures))
    .use(docsPlugin(config))
    .use(healthRoutes(context))
    .use(balanceRoutes(context))
    .use(usageRoutes(context))
    .use(countTokensRoutes(context))
    .use(billingRoutes(context))
    .use(modelRoutes(context))
    .use(msgcompatModelRoutes(context))
    .use(generateContentModelRoutes(context))
    .use(mediaCatalogRoutes(context))
    .use(quoteRoutes(context))
    .use(imageRoutes(context))
    .use(audioRoutes(context))
    .use(videoRoutes(context))
    .use(textRoutes(context))
    .use(compatRoutes(context))
    .use(fileRoutes(context))
    .use(adminListRoutes(context))
    .use(adminUserRoutes(context))
    .use(adminKeyRoutes(context))
    .use(adminEndpointRoutes(context));
  paths = app.routes.filter((route) => route.method !== "OPTIONS").map((route) => route.path);
  // Every request, whatever answers it, gets its x-request-id, an access line and metrics.
  wrapFetch(app, (inner) => observeFetch(inner, { logger, metrics, catalog }));
  return { app, ledger, closures, waiter, context };
}

export type GatewayApp = Awaited<ReturnType<typeof createApp>>["app"];
