import { Balance, ErrorBody } from "@gw/schemas";
import { quotaToUsd } from "@gw/tariffs";
import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";

/**
 * GET /v1/balance: the wallet of the key's owner, whatever the key's own budget. Its own
 * IP window (shared block with the models group) and the critical tier, spec 8.1-8.3.
 */
export function balanceRoutes({ auth, rateLimit }: AppContext) {
  return new Elysia({ name: "gw/routes/balance" })
    .use(auth)
    .use(rateLimit)
    .get(
      "/v1/balance",
      ({ principal }) => ({
        balance: quotaToUsd(principal.balanceQuota),
        total_spent: quotaToUsd(principal.spentQuota),
      }),
      {
        auth: { mode: "ordinary" },
        limit: { ip: "balance", tier: "critical" },
        response: { 200: Balance, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
        detail: {
          tags: ["balance"],
          summary: "Wallet balance and total spend of the key's owner, in USD",
        },
      },
    );
}
