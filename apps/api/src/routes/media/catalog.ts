import { ErrorBody, MediaModelList } from "@gw/schemas";
import type { Access } from "@gw/tariffs";
import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { BEARER_OR_API_KEY } from "../docs.ts";
import { accessOf } from "../models/access.ts";
import { mediaModel } from "../models/present.ts";

const EVERYONE: Access = [];

/**
 * GET /v1/media/models (spec 2.1, 4.4). Public: the sample call sends no key, and the
 * catalog with its prices is what a newcomer reads first. A key, when sent, must be
 * valid, and narrows the list to what that key and its account may call.
 */
export function mediaCatalogRoutes({ catalog, auth, rateLimit }: AppContext) {
  return new Elysia({ name: "gw/routes/media/catalog" })
    .use(auth)
    .use(rateLimit)
    .get(
      "/v1/media/models",
      ({ viewer }) => {
        const access = viewer ? accessOf(viewer) : EVERYONE;
        const data = catalog
          .visible(access)
          .filter((model) => model.kind !== "text")
          .map(mediaModel);
        return { object: "list" as const, data };
      },
      {
        optionalAuth: { mode: "ordinary", apiKeyHeader: true },
        // Public, so it shares the models IP window with the other catalog reads.
        limit: { ip: "models" },
        response: { 200: MediaModelList, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
        detail: {
          tags: ["media"],
          summary: "Media models with operations, input schemas and tariffs (no key needed)",
          // No key, or one that narrows the list (and must then be valid).
          security: [{}, ...BEARER_OR_API_KEY],
        },
      },
    );
}
