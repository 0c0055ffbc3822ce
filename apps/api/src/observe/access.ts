import type { Catalog } from "@gw/tariffs";
import { errorFields, type GatewayMetrics, type Logger, requestIdFrom } from "@gw/telemetry";
import { type RequestInfo, withRequest } from "./request-context.ts";

export type Fetch = (request: Request, server?: unknown) => Response | Promise<Response>;

/**
 * Puts `wrap` around an app's fetch handler for good: Elysia compiles a new handler when
 * it starts listening and installs it as `fetch`, so the wrap is installed again after
 * every compile (the server is then reloaded with the wrapped handler).
 */
export function wrapFetch(
  app: { fetch: Fetch; compile(): unknown },
  wrap: (inner: Fetch) => Fetch,
) {
  const install = () => {
    Object.defineProperty(app, "fetch", {
      value: wrap(app.fetch),
      configurable: true,
      writable: true,
    });
  };
  install();
  const compile = app.compile.bind(app);
  app.compile = () => {
    const compiled = compile();
    install();
    return compiled;
  };
}

export interface ObserveOptions {
  logger: Logger;
  metrics: GatewayMetrics;
  catalog: Catalog;
}

const POSTGRES_ERROR = /^(PostgresError|CONNECTION_|CONNECT_TIMEOUT)/;
const REDIS_ERROR =
  /^(ReplyError|MaxRetriesPerRequestError|Connection is closed|Stream isn't writeable)/;

/** Which backend an unexpected failure came from, if any (postgres.js and ioredis errors). */
export function backendOf(error: unknown): "postgres" | "redis" | null {
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  if (error.name === "PostgresError" || (typeof code === "string" && POSTGRES_ERROR.test(code)))
    return "postgres";
  if (REDIS_ERROR.test(error.name) || REDIS_ERROR.test(error.message)) return "redis";
  return null;
}

/**
 * Wraps the server's fetch handler: every request gets its id (the client's well-formed
 * `x-request-id`, or a new one) on its answer, whatever answered it (a route, a refusal
 * before routing, a failure), one access line (method, route, status, duration, key id,
 * task id, request id; never headers or bodies), and its metrics.
 */
export function observeFetch(inner: Fetch, { logger, metrics, catalog }: ObserveOptions): Fetch {
  const finish = (request: Request, info: RequestInfo, response: Response) => {
    try {
      response.headers.set("x-request-id", info.id);
    } catch {
      // An immutable response (a proxied one) keeps its headers.
    }
    const seconds = (performance.now() - info.start) / 1000;
    const status = response.status;
    const route = info.route ?? "(unmatched)";
    const model = info.model && catalog.get(info.model) ? info.model : "";
    const taskId = response.headers.get("x-task-id");
    metrics.requests.inc({
      route,
      method: request.method,
      status: String(status),
      model,
      key_id: info.keyId ?? "",
    });
    if (info.limitedBy) metrics.limiterRefusals.inc({ group: info.limitedBy });
    metrics.requestDuration.observe({ route, method: request.method, model }, seconds);
    metrics.overhead.observe(
      { route, model },
      Math.max(0, seconds - (info.upstreamMs ?? 0) / 1000),
    );
    const line = {
      event: "request",
      request_id: info.id,
      method: request.method,
      route,
      status,
      ms: Math.round(seconds * 100_000) / 100,
      ...(info.keyId ? { key_id: info.keyId } : {}),
      ...(model ? { model } : {}),
      ...(taskId ? { task_id: taskId } : {}),
    };
    if (status >= 500) {
      const backend = info.error ? backendOf(info.error) : null;
      if (backend) metrics.backendErrors.inc({ backend });
      logger.error({ ...line, ...(info.error ? errorFields(info.error) : {}) }, "request failed");
    } else logger.info(line, "request");
    return response;
  };
  return (request, server) => {
    const info: RequestInfo = {
      id: requestIdFrom(request.headers.get("x-request-id")),
      start: performance.now(),
    };
    return withRequest(info, async () => {
      let response: Response;
      try {
        response = await inner(request, server);
      } catch (error) {
        info.error = error;
        throw error;
      }
      return finish(request, info, response);
    });
  };
}
