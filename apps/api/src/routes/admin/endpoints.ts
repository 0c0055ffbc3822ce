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
import { compileClosure, normalizePath } from "../../plugins/closures.ts";
import { adminGuard } from "./guard.ts";

const EXAMPLES = "e.g. /v1/balance, /v1/models/:model or /v1/files/*";

/** The path as it may be shown in a message: printable ASCII only, and short. */
function shown(path: string): string {
  return path.replace(/[^\x21-\x7e]/g, "?").slice(0, 200);
}

/**
 * A closable path is a route of this app (as written, or a concrete path of it), or a
 * prefix pattern `<prefix>/*` that covers at least one route; never an admin or docs
 * page. A `*` anywhere but a trailing `/*` segment is refused rather than matched literally.
 */
function validateClosable(path: string, routePaths: string[]): string {
  if (!/^\/[\x21-\x7e]*$/.test(path))
    throw new ApiError(
      "invalid_request",
      `Invalid endpoint '${shown(path)}': give a path of printable ASCII starting with /, ${EXAMPLES}`,
    );
  const normalized = normalizePath(path);
  const prefix = normalized.endsWith("/*");
  if (normalized.slice(0, prefix ? -2 : undefined).includes("*"))
    throw new ApiError(
      "invalid_request",
      `Invalid endpoint '${shown(path)}': * is only allowed as a last segment, /*, closing everything under a prefix (${EXAMPLES})`,
    );
  const matcher = compileClosure(normalized);
  const coversAdmin = ["/admin", "/swagger"].some(
    (page) => matcher.test(page) || matcher.test(`${page}/x`),
  );
  if (coversAdmin || /^\/(admin|swagger)(\/|$)/.test(normalized))
    throw new ApiError(
      "invalid_request",
      `Invalid endpoint '${shown(path)}': admin and documentation paths cannot be closed`,
    );
  const known = routePaths.some((route) => {
    const pattern = normalizePath(route);
    if (pattern === normalized) return true;
    // A concrete path of a route, or a route under a prefix pattern.
    const routeMatcher = new RegExp(
      `^${pattern.replace(/:[^/]+/g, "[^/]+").replace(/\*/g, ".*")}$`,
    );
    return prefix
      ? matcher.test(pattern.replace(/:[^/]+/g, "x").replace(/\*$/, "x"))
      : routeMatcher.test(normalized);
  });
  if (!known)
    throw new ApiError(
      "not_found",
      prefix
        ? `No endpoint lies under ${shown(normalized)}`
        : `No endpoint ${shown(normalized)}; see the OpenAPI document for the routes`,
    );
  return normalized;
}

/** The router may or may not have decoded %2F already; a malformed escape is the client's error. */
function decodePath(raw: string): string {
  try {
    return raw.includes("%") ? decodeURIComponent(raw) : raw;
  } catch {
    throw new ApiError(
      "invalid_request",
      `Invalid endpoint '${shown(raw)}': malformed URL encoding; encode the path with encodeURIComponent, ${EXAMPLES}`,
    );
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
        // The path as sent, still encoded: the router would decode it (and turn a malformed
        // escape into nothing), while decodePath names a malformed one.
        transform({ params, request }) {
          const pathname = new URL(request.url).pathname;
          (params as { path: string }).path = pathname.slice(pathname.indexOf("/endpoints/") + 11);
        },
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
