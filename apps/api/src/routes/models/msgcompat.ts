import type { Principal } from "@gw/accounts";
import { ErrorBody, MsgModel, MsgModelList } from "@gw/schemas";
import type { Catalog, CatalogModel } from "@gw/tariffs";
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { BEARER_OR_API_KEY } from "../docs.ts";
import { accessOf } from "./access.ts";
import { msgModel } from "./present.ts";

/**
 * Spec 4.8 and 9.3: a message-API client announces itself with a version header
 * (`msgcompat-version: 2023-06-01`; the real SDKs send `anthropic-version`, newer ones
 * with a later date and the key as Bearer). Only such clients send that header.
 */
export function isMessageStyle(headers: Headers): boolean {
  return headers.has("msgcompat-version") || headers.has("anthropic-version");
}

export const MsgListQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, default: 1000 })),
  after_id: t.Optional(t.String({ maxLength: 200 })),
  before_id: t.Optional(t.String({ maxLength: 200 })),
});
type MsgListQuery = typeof MsgListQuery.static;

function msgModels(catalog: Catalog, principal: Principal): CatalogModel[] {
  return catalog
    .visible(accessOf(principal))
    .filter((model) => model.endpointTypes.includes("msgcompat"));
}

/** The message-API list: paged by after_id/before_id; first_id/last_id absent when empty. */
export function msgModelList(catalog: Catalog, principal: Principal, query: MsgListQuery) {
  const all = msgModels(catalog, principal);
  const limit = query.limit ?? 1000;
  let start = 0;
  let end = all.length;
  const at = (id: string) => {
    const index = all.findIndex((model) => model.id === id);
    if (index < 0) throw new ApiError("invalid_request", `Unknown model id in cursor: "${id}"`);
    return index;
  };
  if (query.after_id !== undefined) start = at(query.after_id) + 1;
  if (query.before_id !== undefined) end = at(query.before_id);
  const page =
    query.before_id !== undefined && query.after_id === undefined
      ? all.slice(Math.max(start, end - limit), end)
      : all.slice(start, Math.min(end, start + limit));
  const data = page.map(msgModel);
  const hasMore =
    query.before_id !== undefined && query.after_id === undefined
      ? end - limit > start
      : start + limit < end;
  return {
    data,
    has_more: hasMore,
    ...(data.length > 0 ? { first_id: data[0]!.id, last_id: data.at(-1)!.id } : {}),
  };
}

/** Spec 4.8: /msgcompat/v1/models and one model; x-api-key is accepted (spec 5.2). */
export function msgcompatModelRoutes({ auth, rateLimit, catalog }: AppContext) {
  const hook = {
    auth: { mode: "ordinary" as const, apiKeyHeader: true },
    limit: { model: true, tier: "general" as const },
    detail: { tags: ["models"], security: BEARER_OR_API_KEY },
  };
  return new Elysia({ name: "gw/routes/models/msgcompat" })
    .use(auth)
    .use(rateLimit)
    .get(
      "/msgcompat/v1/models",
      ({ principal, query }) => msgModelList(catalog, principal, query),
      {
        ...hook,
        query: MsgListQuery,
        response: {
          200: MsgModelList,
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          429: ErrorBody,
        },
        detail: { ...hook.detail, summary: "Models in the message-API style" },
      },
    )
    .get(
      "/msgcompat/v1/models/:model",
      ({ principal, params }) => {
        const model = msgModels(catalog, principal).find((each) => each.id === params.model);
        if (!model) throw new ApiError("not_found", `Model "${params.model}" does not exist`);
        return msgModel(model);
      },
      {
        ...hook,
        params: t.Object({ model: t.String({ maxLength: 200 }) }),
        response: { 200: MsgModel, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody },
        detail: { ...hook.detail, summary: "One model in the message-API style" },
      },
    );
}
