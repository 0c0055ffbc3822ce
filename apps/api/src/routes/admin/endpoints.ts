import {
  ClosedEndpoints,
  EndpointClosure,
  EndpointParam,
  EndpointState,
  ErrorBody,
} from "@gw/schemas";
import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { normalizePath } from "../../plugins/closures.ts";
import { adminGuard } from "./guard.ts";

/** A closable path is a route of this app (as written, or a concrete path of it), never an admin or docs page. */
function validateClosable(path: string, routePaths: string[]): string {
  const normalized = normalizePath(path);
  if (!normalized.startsWith("/") || /^\/(admin|swagger)(\/|$)/.test(normalized)) {
    throw new ApiError(
      "invalid_request",
      `Invalid endpoint '${path}': admin and documentation paths cannot be closed`,
    );
  }
  const known = routePaths.some((route) => {
    const pattern = normalizePath(route);
    if (pattern === normalized) return true;
    const regex = new RegExp(`^${pattern.replace(/:[^/]+/g, "[^/]+").replace(/\*/g, ".*")}$`);
    return regex.test(normalized);
  });
  if (!known) throw new ApiError("not_found", `No endpoint ${normalized}`);
  return normalized;
}

/** The router may or may not have decoded %2F already; a malformed escape is the client's error. */
function decodePath(raw: string): string {
  try {
    return raw.includes("%") ? decodeURIComponent(raw) : raw;
  } catch {
    throw new ApiError("invalid_request", `Invalid endpoint '${raw}': malformed URL encoding`);
  }
}

export function adminEndpointRoutes({ config, closures, routePaths }: AppContext) {
  const detail = (summary: string) => ({ tags: ["admin"], summary, security: [{ admin: [] }] });
  return new Elysia({ name: "gw/routes/admin/endpoints" })
    .use(adminGuard(config.adminToken))
    .put(
      "/admin/endpoints/:path",
      async ({ params, body }) => {
        const path = validateClosable(decodePath(params.path), routePaths());
        await closures.set(path, body.closed);
        return { path, closed: body.closed };
      },
      {
        params: EndpointParam,
        body: EndpointClosure,
        response: { 200: EndpointState, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
        detail: detail(
          "Close (503) or reopen an endpoint; {path} is URL-encoded, e.g. %2Fv1%2Fbalance",
        ),
      },
    )
    .get("/admin/endpoints", async () => ({ data: await closures.list() }), {
      response: { 200: ClosedEndpoints, 401: ErrorBody },
      detail: detail("List closed endpoints"),
    });
}
