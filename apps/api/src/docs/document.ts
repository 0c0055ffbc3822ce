import { toOpenAPISchema } from "@elysiajs/openapi";
import { ERRORS, ErrorBody } from "@gw/schemas";
import { type AnyElysia, type InternalRoute, InvertedStatusMap } from "elysia";
import { ADMIN_PREFIX } from "../routes/admin/guard.ts";

/**
 * The version the document declares. 3.1.0 rather than a later patch: the 3.1 patches
 * only clarify the text, and some validators (swagger-parser) know 3.1.0 alone.
 */
export const OPENAPI_VERSION = "3.1.0";

const ERROR_SCHEMA_REF = "#/components/schemas/ErrorBody";

type Json = Record<string, unknown>;
interface Parameter extends Json {
  name: string;
  in: string;
}
interface Operation extends Json {
  parameters?: Parameter[];
  requestBody?: Json;
  responses?: Record<string, Json>;
}
type PathItem = Record<string, Operation>;

/** What a route may declare in `detail` beyond what its schemas say (see buildDocument). */
interface Detail {
  hide?: boolean;
  parameters?: Parameter[];
  requestBody?: Json;
  responses?: Record<string, Json>;
}

/** The route as the generator should see it; the reasons are in the comments inside. */
function asDocumented(route: InternalRoute): InternalRoute {
  const detail = (route.hooks.detail ?? {}) as Detail;
  const hooks = { ...route.hooks };
  // Every body is read by the body plugin (plugins/body), which takes JSON, and multipart
  // only on the routes whose policy allows it; those declare both in detail.requestBody.
  // The generator cannot see that (the plugin is one function parser for all routes), so
  // it is shown a JSON parser, or no body where the route declared its own.
  if (detail.requestBody) hooks.body = undefined;
  else hooks.parse = [{ fn: "json" }] as typeof hooks.parse;
  // A wildcard segment takes the name of the path parameter the route declares for it.
  const wildcard = detail.parameters?.find((parameter) => parameter.in === "path");
  let path = wildcard ? route.path.replace(/\/\*$/, `/:${wildcard.name}`) : route.path;
  // Every path is also served with a trailing slash and without one; the document shows
  // the form without, as OpenAPI tools expect.
  if (path.length > 1) path = path.replace(/\/$/, "");
  return { ...route, path, hooks };
}

/**
 * TypeBox writes a record (`Type.Record(Type.String(), X)`) as `patternProperties` with the
 * catch-all `^(.*)$`; `additionalProperties: X` says the same, and tools that generate
 * clients or examples understand it (Scalar would show the pattern as a property name).
 */
function plainRecords(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(plainRecords);
  if (node === null || typeof node !== "object") return node;
  const entries = Object.entries(node).map(([key, value]) => [key, plainRecords(value)] as const);
  const schema = Object.fromEntries(entries) as Json;
  const patterns = schema.patternProperties as Json | undefined;
  if (
    patterns &&
    Object.keys(patterns).join() === "^(.*)$" &&
    !("additionalProperties" in schema)
  ) {
    const { patternProperties: _, ...rest } = schema;
    return { ...rest, additionalProperties: patterns["^(.*)$"] };
  }
  return schema;
}

/** The generator's paths for one route: @elysiajs/openapi reads only these two methods. */
function generate(route: InternalRoute, definitions: Json): Record<string, PathItem> {
  const app = {
    getGlobalRoutes: () => [route],
    getGlobalDefinitions: () => ({ type: definitions }),
  } as unknown as AnyElysia;
  const { paths } = toOpenAPISchema(app, undefined, undefined, undefined, OPENAPI_VERSION);
  // A JSON copy: plain data, TypeBox's symbols dropped, nothing shared with the routes.
  return JSON.parse(JSON.stringify(paths));
}

const PARAMETER_ORDER = ["path", "query", "header", "cookie"];

/** Declared parameters (headers the handler reads, a wildcard's name) replace generated ones. */
function mergeParameters(generated: Parameter[] = [], declared: Parameter[] = []): Parameter[] {
  const key = (parameter: Parameter) => `${parameter.in} ${parameter.name}`;
  const declaredKeys = new Set(declared.map(key));
  return [...generated.filter((parameter) => !declaredKeys.has(key(parameter))), ...declared].sort(
    (a, b) => PARAMETER_ORDER.indexOf(a.in) - PARAMETER_ORDER.indexOf(b.in),
  );
}

/**
 * Statuses a route answers because of an app-wide plugin rather than its own code; added
 * here once rather than on every route. Everything else a route lists in `response`.
 */
function appWideStatuses(route: InternalRoute, operation: Operation): number[] {
  // plugins/errors.ts: an unexpected failure.
  const statuses = [500];
  // routes/admin/guard.ts: a wrong token, or the admin API off (no ADMIN_TOKEN);
  // plugins/closures.ts: an endpoint an administrator closed (never an admin one).
  if (route.path.startsWith(ADMIN_PREFIX)) statuses.push(401, 404);
  else statuses.push(503);
  // plugins/errors.ts: input that fails the route's schemas.
  const { params, query, headers, body } = route.hooks;
  if (params || query || headers || body) statuses.push(400);
  // plugins/body: an unreadable body, one over the route's limit, or another media type.
  if (operation.requestBody) statuses.push(400, 413, 415);
  return statuses;
}

/** The reason phrase as a component name: 413 is `PayloadTooLarge`. */
function responseName(status: number): string {
  const phrase = (InvertedStatusMap as Record<number, string>)[status] ?? `Status${status}`;
  return phrase.replace(/[^A-Za-z]/g, "");
}

/** The shared error response of one status, listing the codes that answer with it. */
function errorResponse(status: number): Json {
  const codes = Object.entries(ERRORS)
    .filter(([, error]) => error.status === status)
    .map(([code]) => `\`${code}\``);
  const phrase = (InvertedStatusMap as Record<number, string>)[status] ?? "Error";
  const retryAfter = {
    "Retry-After": {
      description: "Seconds to wait before retrying (`rate_limited`, `rate_limit_unavailable`).",
      schema: { type: "integer", minimum: 1 },
    },
  };
  return {
    description: codes.length ? `${phrase}; \`code\` is one of ${codes.join(", ")}.` : phrase,
    ...(status === 429 || status === 503 ? { headers: retryAfter } : {}),
    content: { "application/json": { schema: { $ref: ERROR_SCHEMA_REF } } },
  };
}

/** Is this generated response the route's error shape? By the very schema the route passed. */
function isErrorShape(route: InternalRoute, status: string): boolean {
  const response = route.hooks.response as Record<string, unknown> | undefined;
  return response?.[status] === ErrorBody;
}

/** The responses of one operation: errors by reference, void as no content, declared merged. */
function finishResponses(
  route: InternalRoute,
  operation: Operation,
  usedErrors: Set<number>,
): Record<string, Json> {
  const responses: Record<string, Json> = {};
  const errorRef = (status: number) => {
    usedErrors.add(status);
    return { $ref: `#/components/responses/${responseName(status)}` };
  };
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    const content = response.content as Json | undefined;
    if (isErrorShape(route, status)) responses[status] = errorRef(Number(status));
    // The generator writes `t.Void()` as `content: {type: "void"}`, which is no media type.
    else if (typeof content?.type === "string")
      responses[status] = { description: response.description };
    else responses[status] = response;
  }
  for (const status of appWideStatuses(route, operation))
    responses[String(status)] ??= errorRef(status);
  // What a schema cannot say (another media type, headers, a better description) the route
  // declares in detail.responses; the generator drops those, so they are merged back here.
  const declared = ((route.hooks.detail ?? {}) as Detail).responses ?? {};
  for (const [status, response] of Object.entries(JSON.parse(JSON.stringify(declared)))) {
    const generated = responses[status] ?? {};
    const { content, headers, ...rest } = response as Json;
    responses[status] = {
      ...generated,
      ...rest,
      ...(headers ? { headers: { ...(generated.headers as Json), ...(headers as Json) } } : {}),
      ...(content ? { content: { ...(generated.content as Json), ...(content as Json) } } : {}),
    };
  }
  for (const [status, response] of Object.entries(responses))
    if (String(response.description ?? "").startsWith("Response for status"))
      response.description = (InvertedStatusMap as Record<number, string>)[Number(status)];
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

export interface DocumentBase extends Json {
  info: Json;
  servers: Json[];
  components: Json & { securitySchemes: Json };
}

/**
 * The OpenAPI 3.1 document of the app's routes. @elysiajs/openapi generates each route's
 * operation from the TypeBox schemas that validate it (params, query, headers, body and
 * `response`); this adds what the generator cannot know: that bodies are JSON unless a
 * route declares otherwise, the statuses app-wide plugins answer, parameters and
 * responses a route declares in `detail`, and one shared error response per status.
 */
export function buildDocument(
  routes: InternalRoute[],
  definitions: Json,
  base: DocumentBase,
): Json & { paths: Record<string, PathItem> } {
  const paths: Record<string, PathItem> = {};
  const usedErrors = new Set<number>();
  for (const route of routes) {
    const detail = (route.hooks.detail ?? {}) as Detail;
    if (detail.hide) continue;
    for (const [path, item] of Object.entries(generate(asDocumented(route), definitions))) {
      for (const [method, operation] of Object.entries(item)) {
        const parameters = mergeParameters(operation.parameters, detail.parameters);
        const finished: Operation = {
          ...operation,
          ...(parameters.length ? { parameters } : {}),
          responses: finishResponses(route, operation, usedErrors),
        };
        paths[path] = { ...paths[path], [method]: finished };
      }
    }
  }
  const responses = Object.fromEntries(
    [...usedErrors].sort().map((status) => [responseName(status), errorResponse(status)]),
  );
  return plainRecords({
    openapi: OPENAPI_VERSION,
    ...base,
    paths,
    components: {
      ...base.components,
      schemas: { ...definitions, ErrorBody: JSON.parse(JSON.stringify(ErrorBody)) },
      responses,
    },
  }) as Json & { paths: Record<string, PathItem> };
}
