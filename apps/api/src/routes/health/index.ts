import { timingSafeEqual } from "node:crypto";
import { countOpenHolds } from "@gw/ledger";
import { ErrorBody } from "@gw/schemas";
import { checkBackends } from "@gw/store";
import { queueStats } from "@gw/tasks";
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";

const Health = t.Object({ status: t.Literal("ok") });
const Readiness = t.Object({
  status: t.Union([t.Literal("ready"), t.Literal("unready")]),
  checks: t.Record(t.String(), t.String(), {
    description: "Each check: `ok`, or why not (postgres, redis, migrations, catalog, draining)",
  }),
});

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Operations endpoints: liveness (`/healthz`: the process answers), readiness
 * (`/readyz`: Postgres and Redis answer, every migration applied, the catalog loaded,
 * not draining for a stop) and the Prometheus metrics (`/metrics`). The metrics carry
 * spend by key id, so with METRICS_TOKEN or ADMIN_TOKEN set they take that bearer token.
 */
export function healthRoutes(ctx: AppContext) {
  const { metrics } = ctx;
  metrics.onCollect(async () => {
    for (const stats of await queueStats(
      ctx.redis,
      ctx.config.redisPrefix,
      ctx.config.jobPartitions,
    )) {
      metrics.queueDepth.set({ partition: String(stats.partition) }, stats.depth);
      metrics.queueOldestAge.set({ partition: String(stats.partition) }, stats.oldestAgeMs / 1000);
    }
  });
  metrics.onCollect(async () => metrics.holdsOpen.set(await countOpenHolds(ctx.sql)));
  const tokens = [ctx.config.metricsToken, ctx.config.adminToken].filter(
    (token): token is string => token !== undefined,
  );
  return new Elysia({ name: "gw/routes/health" })
    .get("/healthz", () => ({ status: "ok" as const }), {
      response: { 200: Health },
      detail: {
        tags: ["operations"],
        summary: "Liveness: the process answers",
        security: [],
      },
    })
    .get(
      "/readyz",
      async ({ set }) => {
        const checks = {
          ...(await checkBackends(ctx.sql, ctx.redis)),
          catalog: ctx.catalog.models.length > 0 ? "ok" : "no models loaded",
          draining: ctx.lifecycle.draining ? "stopping: no new requests" : "ok",
        };
        const ready = Object.values(checks).every((check) => check === "ok");
        set.status = ready ? 200 : 503;
        return { status: ready ? ("ready" as const) : ("unready" as const), checks };
      },
      {
        response: { 200: Readiness, 503: Readiness },
        detail: {
          tags: ["operations"],
          summary: "Readiness: Postgres, Redis, migrations and catalog, and not stopping",
          security: [],
        },
      },
    )
    .get(
      "/metrics",
      async ({ request }) => {
        if (tokens.length > 0) {
          const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
          const given = match?.[1] ?? "";
          if (!tokens.some((token) => sameSecret(given, token)))
            throw new ApiError(
              "invalid_admin_token",
              "GET /metrics takes Authorization: Bearer $METRICS_TOKEN (or the admin token)",
            );
        }
        const { body, contentType } = await metrics.expose();
        return new Response(body, { headers: { "content-type": contentType } });
      },
      {
        response: { 401: ErrorBody },
        detail: {
          tags: ["operations"],
          summary: "Prometheus metrics (text exposition format)",
          // Open without METRICS_TOKEN and ADMIN_TOKEN; otherwise either as a bearer token.
          security: [{}, { metrics: [] }],
          // A raw Response in Prometheus' text format, which no JSON schema describes.
          responses: {
            200: {
              description: "Every metric, in the Prometheus text exposition format",
              content: { "text/plain": { schema: t.String({ description: "Version 0.0.4." }) } },
            },
          },
          description:
            "Requests by route, status, model and key id; latency and the gateway's overhead; tasks by kind and reason; queue depth and oldest job age; settlement batches; spend in USD; holds open; limiter refusals; Redis and Postgres errors. Takes METRICS_TOKEN or the admin token as a bearer token when either is set.",
        },
      },
    );
}
