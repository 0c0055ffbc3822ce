import { checkPublicUrl } from "@gw/auth";
import { ErrorBody, MediaCallBody, Quote } from "@gw/schemas";
import { normalizeCall, priceCall, toBilling } from "@gw/tariffs";
import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { accessOf } from "../models/access.ts";

/** Spec 4.3 and 8: a quote body is at most 1 MiB whatever the general JSON limit. */
export const QUOTE_MAX_BODY_BYTES = 1024 * 1024;

/**
 * POST /v1/media/quote: the billing object of the call as it would run now, with the
 * normalized input. Free and side-effect free: no task, no hold, no charge, and task
 * IDs in the input are not looked up, so a quote reveals nothing about them.
 */
export function quoteRoutes({ auth, rateLimit, catalog }: AppContext) {
  return new Elysia({ name: "gw/routes/media/quote" })
    .use(auth)
    .use(rateLimit)
    .post(
      "/v1/media/quote",
      ({ principal, body }) => {
        const normalized = normalizeCall(catalog, body, {
          checkUrl: checkPublicUrl,
          access: accessOf(principal),
        });
        if (!normalized.ok) throw new ApiError(normalized.code, normalized.message);
        const { price } = priceCall(normalized.call, principal.discountPpm);
        return { billing: toBilling(price), input: normalized.call.input };
      },
      {
        auth: { mode: "ordinary" },
        limit: { tier: "critical" },
        body: MediaCallBody,
        response: {
          200: Quote,
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          413: ErrorBody,
          429: ErrorBody,
        },
        detail: {
          tags: ["media"],
          summary:
            "Price of a media call, by the tariff in force; creates nothing, charges nothing",
        },
      },
    );
}
