import { ErrorBody, MediaModelList } from "@gw/schemas";
import type { Access } from "@gw/tariffs";
import { Elysia } from "elysia";
import { authorize } from "../../accounts/principal.ts";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { accessOf } from "../models/access.ts";
import { mediaModel } from "../models/present.ts";

const EVERYONE: Access = [];

/**
 * GET /v1/media/models (spec 2.1, 4.4). Public: the sample call sends no key, and the
 * catalog with its prices is what a newcomer reads first. A key, when sent, must be
 * valid, and narrows the list to what that key and its account may call.
 */
export function mediaCatalogRoutes({ sql, catalog, auth, rateLimit }: AppContext) {
  return new Elysia({ name: "gw/routes/media/catalog" })
    .use(auth)
    .use(rateLimit)
    .get(
      "/v1/media/models",
      async ({ request, clientIp }) => {
        const header = request.headers.get("authorization");
        let access = EVERYONE;
        if (header !== null) {
          const secret = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
          if (!secret)
            throw new ApiError("invalid_api_key", "Send Authorization: Bearer <API_KEY>");
          const result = await authorize(sql, secret, "ordinary", clientIp);
          if (!result.ok) throw new ApiError(result.code, "The API key was refused");
          access = accessOf(result.principal);
        }
        const data = catalog
          .visible(access)
          .filter((model) => model.kind !== "text")
          .map(mediaModel);
        return { object: "list" as const, data };
      },
      {
        // Public, so it shares the models IP window with the other catalog reads.
        limit: { ip: "models" },
        response: { 200: MediaModelList, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
        detail: {
          tags: ["media"],
          summary: "Media models with operations, input schemas and tariffs (no key needed)",
        },
      },
    );
}
