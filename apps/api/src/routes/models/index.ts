import type { Principal } from "@gw/accounts";
import {
  ContentModel,
  ContentModelList,
  ErrorBody,
  ModelEntry,
  ModelList,
  ModelLookupError,
  ModelOptionList,
  MsgModelList,
} from "@gw/schemas";
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { ANY_KEY_STYLE } from "../docs.ts";
import { accessOf } from "./access.ts";
import {
  ContentListQuery,
  contentModelOne,
  contentModelPage,
  isContentStyle,
} from "./generate-content.ts";
import { isMessageStyle, MsgListQuery, msgModelList } from "./msgcompat.ts";
import { modelOption } from "./options.ts";
import { modelEntry } from "./present.ts";
import { unknownModel } from "./unknown.ts";

/** Aliases of GET /v1/models in the same format (spec 4.8), with only the key check. */
export const OPENAI_LIST_ALIASES = [
  "/v1beta/openai/models",
  "/compatible/v1beta/openai/models",
  "/compatible/v1/models",
  "/compatible/models",
];

const errors = { 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };
const tags = ["models"];
const ListQuery = t.Composite([MsgListQuery, ContentListQuery]);

/**
 * GET /v1/models (and its aliases), one model, and model options. Every list shows
 * only what the account and the key may use. /v1/models answers in the style of the
 * client: message-API with a version header (spec 4.8), generate-content when the key
 * comes as x-goog-api-key, OpenAI otherwise.
 */
export function modelRoutes({ auth, rateLimit, catalog }: AppContext) {
  const list = (principal: Principal) => ({
    object: "list" as const,
    data: catalog.visible(accessOf(principal)).map(modelEntry),
  });
  const keyCheck = { mode: "ordinary" as const, apiKeyHeader: true, contentKey: true };
  const routes = new Elysia({ name: "gw/routes/models" })
    .use(auth)
    .use(rateLimit)
    .get(
      "/v1/models",
      ({ principal, request, query }) => {
        if (isMessageStyle(request.headers)) return msgModelList(catalog, principal, query);
        if (isContentStyle(request.headers)) return contentModelPage(catalog, principal, query);
        return list(principal);
      },
      {
        auth: keyCheck,
        // Message-style answers also take the key + model + user window (spec 8.4).
        limit: { ip: "models", model: (request: Request) => isMessageStyle(request.headers) },
        query: ListQuery,
        response: {
          200: t.Union([ModelList, MsgModelList, ContentModelList]),
          400: ErrorBody,
          ...errors,
        },
        detail: {
          tags,
          summary:
            "Models the key may use; message-API style with a version header, generate-content style with x-goog-api-key",
          security: ANY_KEY_STYLE,
        },
      },
    )
    .get(
      "/v1/models/:model",
      ({ principal, params, request }) => {
        if (isContentStyle(request.headers))
          return contentModelOne(catalog, principal, params.model);
        const model = catalog.visible(accessOf(principal)).find((each) => each.id === params.model);
        return model ? modelEntry(model) : unknownModel(params.model);
      },
      {
        auth: keyCheck,
        limit: { ip: "models" },
        params: t.Object({ model: t.String({ maxLength: 200 }) }),
        response: {
          200: t.Union([ModelEntry, ModelLookupError, ContentModel]),
          404: ErrorBody,
          ...errors,
        },
        detail: {
          tags,
          summary: "One model by exact ID (no '/'); unknown IDs answer 200 with an error object",
          description:
            "An ID containing '/' cannot be read by path: GET /v1/models/<anything with '/'> answers 200 with the model_not_found error object; find such models in GET /v1/models. With x-goog-api-key the answer is in the generate-content style, and an unknown model is a 404.",
          security: ANY_KEY_STYLE,
        },
      },
    )
    .get("/v1/models/*", ({ params }) => unknownModel(`${params["*"]}`), {
      auth: keyCheck,
      limit: { ip: "models" },
      response: { 200: ModelLookupError, ...errors },
      // OpenAPI has no path parameter that spans segments, so this catch-all is described
      // under GET /v1/models/{model} rather than as a path of its own.
      detail: {
        tags,
        summary: "IDs with '/' are read from the full list, not by path",
        hide: true,
      },
    })
    .get(
      "/v1/model-options",
      ({ principal }) => {
        const visible = new Set(catalog.visible(accessOf(principal)).map((model) => model.id));
        const data = catalog
          .families()
          .map(({ family, options }) =>
            modelOption(
              family,
              options.filter((option) => visible.has(option.id)),
            ),
          )
          .filter((option) => option.options.length > 0);
        return { object: "list" as const, data };
      },
      {
        auth: keyCheck,
        limit: { ip: "models" },
        response: { 200: ModelOptionList, ...errors },
        detail: {
          tags,
          summary: "Families with their callable options and prices",
          security: ANY_KEY_STYLE,
        },
      },
    );
  for (const path of OPENAI_LIST_ALIASES) {
    routes.get(path, ({ principal }) => list(principal), {
      auth: keyCheck,
      response: { 200: ModelList, ...errors },
      detail: { tags, summary: "Alias of GET /v1/models", security: ANY_KEY_STYLE },
    });
  }
  return routes;
}
