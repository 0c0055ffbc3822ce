import type { AppContext } from "../context.ts";
import { ApiError } from "../errors.ts";

/**
 * A paid submission's `webhook_url`: the same rules as client file URLs (public HTTPS, or a
 * host the operator allowed), checked here and again, with DNS, at every delivery.
 */
export function webhookUrlOf(ctx: AppContext, url: string | undefined): string | null {
  if (url === undefined) return null;
  const problem = ctx.urlCheck(url);
  if (problem)
    throw new ApiError("invalid_request", `Invalid body field 'webhook_url': ${problem}`);
  return url;
}
