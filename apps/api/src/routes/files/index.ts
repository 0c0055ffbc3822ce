import { ErrorBody } from "@gw/schemas";
import { MAX_KEY_LENGTH, verifyLink } from "@gw/storage";
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { fileBytes } from "../docs.ts";

const GONE = "This result link is invalid, expired, or its file was deleted";

/**
 * GET /v1/files/<key>: a result file behind a signed link (spec 5.8: bearer-style,
 * whoever holds the link may read it). A bad signature, an expired link and a deleted
 * file all answer the same 404, so a link reveals nothing beyond its own file.
 */
export function fileRoutes(ctx: AppContext) {
  return new Elysia({ name: "gw/routes/files" }).get(
    "/v1/files/*",
    async ({ params, query }) => {
      const key = params["*"];
      const check = verifyLink(
        ctx.config.linkSecret,
        key,
        query.expires ?? null,
        query.signature ?? null,
      );
      if (!check.ok) throw new ApiError("not_found", GONE);
      const file = await ctx.storage.get(key);
      if (!file) throw new ApiError("not_found", GONE);
      const remaining = Math.max(0, Number(query.expires) - Math.floor(Date.now() / 1000));
      return new Response(file.bytes, {
        headers: {
          "content-type": file.contentType,
          "content-length": String(file.size),
          "cache-control": `private, max-age=${remaining}, immutable`,
          "x-content-type-options": "nosniff",
        },
      });
    },
    {
      query: t.Object({
        expires: t.Optional(
          t.String({ maxLength: 20, description: "Unix seconds, as the link gives it." }),
        ),
        signature: t.Optional(
          t.String({ maxLength: 100, description: "The link's signature, as it gives it." }),
        ),
      }),
      response: { 404: ErrorBody },
      detail: {
        tags: ["images"],
        summary: "A result file behind a signed, expiring link (no key needed)",
        description:
          "Links come in task results; they are bearer-style: whoever holds one may read the file until it expires. A bad signature, an expired link and a deleted file all answer 404.",
        // The link is the credential: no key is asked for.
        security: [],
        parameters: [
          {
            name: "key",
            in: "path",
            required: true,
            description:
              "The file's key as the link gives it, e.g. `results/<task id>/0.png`; its `/` are sent as they are.",
            schema: t.String({ pattern: "^[A-Za-z0-9._/-]+$", maxLength: MAX_KEY_LENGTH }),
          },
        ],
        responses: {
          200: {
            description: "The file, with its own Content-Type",
            content: {
              "image/*": fileBytes("An image result."),
              "audio/*": fileBytes("An audio result."),
              "video/*": fileBytes("A video result."),
              "application/json": {
                schema: t.Unknown({ description: "A JSON result, as stored." }),
              },
            },
          },
        },
      },
    },
  );
}
