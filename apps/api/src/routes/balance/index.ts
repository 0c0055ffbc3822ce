import { Balance, ErrorBody } from "@gw/schemas";
import { quotaToUsd } from "@gw/tariffs";
import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";

/** GET /v1/balance: the wallet of the key's owner, whatever the key's own budget. */
export function balanceRoutes({ auth }: AppContext) {
  return new Elysia({ name: "gw/routes/balance" }).use(auth).get(
    "/v1/balance",
    ({ principal }) => ({
      balance: quotaToUsd(principal.balanceQuota),
      total_spent: quotaToUsd(principal.spentQuota),
    }),
    {
      auth: { mode: "ordinary" },
      response: { 200: Balance, 401: ErrorBody, 403: ErrorBody },
      detail: {
        tags: ["balance"],
        summary: "Wallet balance and total spend of the key's owner, in USD",
      },
    },
  );
}
