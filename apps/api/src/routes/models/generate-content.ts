import type { Principal } from "@gw/accounts";
import {
  ContentModel,
  ContentModelList,
  ErrorBody,
  ModelEntry,
  ModelLookupError,
} from "@gw/schemas";
import type { Catalog } from "@gw/tariffs";
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { ANY_KEY_STYLE } from "../docs.ts";
import { accessOf } from "./access.ts";
import { contentModel, modelEntry } from "./present.ts";
import { unknownModel } from "./unknown.ts";

export const ContentListQuery = t.Object({
  pageSize: t.Optional(t.Integer({ minimum: 1, maximum: 1000, default: 50 })),
  pageToken: t.Optional(t.String({ maxLength: 200 })),
  key: t.Optional(t.String({ maxLength: 200 })),
});

/** Page tokens are opaque to clients; inside they are the offset of the next page. */
const encodeToken = (offset: number) => Buffer.from(`o:${offset}`).toString("base64url");
function decodeToken(token: string): number {
  const match = /^o:(\d{1,9})$/.exec(Buffer.from(token, "base64url").toString("utf8"));
  if (!match)
    throw new ApiError("invalid_request", "Invalid pageToken; pass nextPageToken as given");
  return Number(match[1]);
}

/** A page of the generate-content-style list. */
export function contentModelPage(
  catalog: Catalog,
  principal: Principal,
  query: typeof ContentListQuery.static,
) {
  const models = catalog
    .visible(accessOf(principal))
    .filter((model) => model.endpointTypes.includes("generate-content"));
  const offset = query.pageToken ? decodeToken(query.pageToken) : 0;
  const size = query.pageSize ?? 50;
  const next = offset + size;
  return {
    models: models.slice(offset, next).map(contentModel),
    ...(next < models.length ? { nextPageToken: encodeToken(next) } : {}),
  };
}

/** One model in the generate-content style; unknown or not visible is a 404. */
export function contentModelOne(catalog: Catalog, principal: Principal, name: string) {
  const id = name.replace(/^models\//, "");
  const model = catalog.visible(accessOf(principal)).find((each) => each.id === id);
  if (!model?.endpointTypes.includes("generate-content"))
    throw new ApiError("not_found", `Model "${id}" does not exist`);
  return contentModel(model);
}

/** Generate-content clients send their key as x-goog-api-key (or ?key=). */
export const isContentStyle = (headers: Headers) => headers.has("x-goog-api-key");

/**
 * Spec 4.8: generate-content-style lists (`models`, `nextPageToken`) and the single
 * model of the compatible prefix. Clients of that style send the key as
 * `x-goog-api-key` or `?key=`, so those are accepted here besides Bearer.
 */
export function generateContentModelRoutes({ auth, catalog }: AppContext) {
  const authOptions = { mode: "ordinary" as const, apiKeyHeader: true, contentKey: true };
  const list = new Elysia({ name: "gw/routes/models/generate-content" }).use(auth);
  for (const path of ["/v1beta/models", "/compatible/v1beta/models"]) {
    list.get(path, ({ principal, query }) => contentModelPage(catalog, principal, query), {
      auth: authOptions,
      query: ContentListQuery,
      response: {
        200: ContentModelList,
        400: ErrorBody,
        401: ErrorBody,
        403: ErrorBody,
        429: ErrorBody,
      },
      detail: {
        tags: ["models"],
        summary: "Models in the generate-content style, paged",
        security: ANY_KEY_STYLE,
      },
    });
  }
  const params = t.Object({ model: t.String({ maxLength: 200 }) });
  return list
    .get(
      "/v1beta/models/:model",
      ({ principal, params }) => contentModelOne(catalog, principal, params.model),
      {
        auth: authOptions,
        params,
        response: {
          200: ContentModel,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          429: ErrorBody,
        },
        detail: {
          tags: ["models"],
          summary: "One model in the generate-content style",
          security: ANY_KEY_STYLE,
        },
      },
    )
    .get(
      "/compatible/v1beta/models/:model",
      ({ principal, params }) => {
        const model = catalog.visible(accessOf(principal)).find((each) => each.id === params.model);
        return model ? modelEntry(model) : unknownModel(params.model);
      },
      {
        auth: authOptions,
        params,
        response: {
          200: t.Union([ModelEntry, ModelLookupError]),
          401: ErrorBody,
          403: ErrorBody,
          429: ErrorBody,
        },
        detail: {
          tags: ["models"],
          summary: "One model as in GET /v1/models/{model}",
          security: ANY_KEY_STYLE,
        },
      },
    );
}
