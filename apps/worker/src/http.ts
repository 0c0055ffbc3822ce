import type { CheckResult } from "@gw/store";
import type { GatewayMetrics, Logger } from "@gw/telemetry";

export interface ProbeServerOptions {
  port: number;
  metrics: GatewayMetrics;
  /** Named checks; the worker is ready when every one answers `ok`. */
  ready: () => Promise<Record<string, CheckResult>>;
  logger: Logger;
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/**
 * The worker's own small HTTP server: `/metrics` (Prometheus text), `/healthz` (the
 * process runs) and `/readyz` (Postgres, Redis, migrations, catalog, taking jobs). When
 * its port is taken (two workers on one host), it takes any free port and says which.
 */
export function startProbeServer(options: ProbeServerOptions) {
  const fetch = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    if (request.method !== "GET" && request.method !== "HEAD")
      return json(405, {
        error: { message: "Only GET", type: "invalid_request_error", code: "method_not_allowed" },
      });
    if (path === "/healthz") return json(200, { status: "ok" });
    if (path === "/readyz") {
      const checks = await options.ready();
      const ready = Object.values(checks).every((check) => check === "ok");
      return json(ready ? 200 : 503, { status: ready ? "ready" : "unready", checks });
    }
    if (path === "/metrics") {
      const { body, contentType } = await options.metrics.expose();
      return new Response(body, { headers: { "content-type": contentType } });
    }
    return json(404, {
      error: {
        message: `No endpoint GET ${path}`,
        type: "invalid_request_error",
        code: "not_found",
      },
    });
  };
  try {
    return Bun.serve({ port: options.port, fetch, development: false });
  } catch (error) {
    if ((error as { code?: string }).code !== "EADDRINUSE") throw error;
    const server = Bun.serve({ port: 0, fetch, development: false });
    options.logger.warn(
      { wanted: options.port, port: server.port },
      `port ${options.port} is taken; /metrics, /healthz and /readyz are on port ${server.port}`,
    );
    return server;
  }
}
