import { createUser, findUser, updateUser } from "@gw/accounts";
import { CreditBody, ErrorBody, IdParam, User, UserCreate, UserPatch } from "@gw/schemas";
import { fractionToPpm, usdToQuota } from "@gw/tariffs";
import { rotateWebhookSecret, webhookSecret } from "@gw/webhooks";
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { adminGuard } from "./guard.ts";
import { presentUser } from "./present.ts";

function quotaOf(field: string, usd: number): bigint {
  const parsed = usdToQuota(usd);
  if (!parsed.ok)
    throw new ApiError("invalid_request", `Invalid body field '${field}': ${parsed.reason}`);
  return parsed.quota;
}

function ppmOf(discount: number | undefined): number | undefined {
  if (discount === undefined) return undefined;
  const ppm = fractionToPpm(discount);
  if (ppm === null)
    throw new ApiError(
      "invalid_request",
      "Invalid body field 'discount': use at most six decimal places between 0 and 1",
    );
  return ppm;
}

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };
const WebhookSecret = t.Object({
  user_id: t.String(),
  secret: t.String({
    description:
      "Standard Webhooks secret (whsec_…): verify deliveries' webhook-signature with it.",
  }),
});

const detail = (summary: string) => ({ tags: ["admin"], summary, security: [{ admin: [] }] });

export function adminUserRoutes({ config, sql, ledger }: AppContext) {
  return new Elysia({ name: "gw/routes/admin/users" })
    .use(adminGuard(config.adminToken))
    .post(
      "/admin/users",
      async ({ body, set }) => {
        const user = await createUser(sql, ledger, {
          name: body.name,
          balanceQuota: quotaOf("balance_usd", body.balance_usd ?? 0),
          discountPpm: ppmOf(body.discount) ?? 0,
          status: body.status ?? "active",
          allowedModels: body.allowed_models ?? [],
        });
        set.status = 201;
        return presentUser(user);
      },
      { body: UserCreate, response: { 201: User, ...errors }, detail: detail("Create an account") },
    )
    .get(
      "/admin/users/:id",
      async ({ params }) => {
        const user = await findUser(sql, BigInt(params.id));
        if (!user) throw new ApiError("not_found", `No user ${params.id}`);
        return presentUser(user);
      },
      { params: IdParam, response: { 200: User, ...errors }, detail: detail("Read an account") },
    )
    .patch(
      "/admin/users/:id",
      async ({ params, body }) => {
        const user = await updateUser(sql, BigInt(params.id), {
          name: body.name,
          discountPpm: ppmOf(body.discount),
          status: body.status,
          allowedModels: body.allowed_models,
        });
        if (!user) throw new ApiError("not_found", `No user ${params.id}`);
        return presentUser(user);
      },
      {
        params: IdParam,
        body: UserPatch,
        response: { 200: User, ...errors },
        detail: detail("Change an account"),
      },
    )
    .post(
      "/admin/users/:id/credits",
      async ({ params, body }) => {
        const result = await ledger.credit({
          userId: BigInt(params.id),
          amountQuota: quotaOf("amount_usd", body.amount_usd),
          note: body.note,
        });
        if (!result.ok) throw new ApiError("not_found", `No user ${params.id}`);
        return presentUser((await findUser(sql, BigInt(params.id)))!);
      },
      {
        params: IdParam,
        body: CreditBody,
        response: { 200: User, ...errors },
        detail: detail("Top up a wallet (a ledger credit; not part of spend history)"),
      },
    )
    .get(
      "/admin/users/:id/webhook-secret",
      async ({ params }) => {
        const secret = await webhookSecret(sql, BigInt(params.id));
        if (!secret) throw new ApiError("not_found", `No user ${params.id}`);
        return { user_id: params.id, secret };
      },
      {
        params: IdParam,
        response: { 200: WebhookSecret, ...errors },
        detail: detail("The account's webhook signing secret (made on first read)"),
      },
    )
    .post(
      "/admin/users/:id/webhook-secret/rotate",
      async ({ params }) => {
        const secret = await rotateWebhookSecret(sql, BigInt(params.id));
        if (!secret) throw new ApiError("not_found", `No user ${params.id}`);
        return { user_id: params.id, secret };
      },
      {
        params: IdParam,
        response: { 200: WebhookSecret, ...errors },
        detail: detail("Replace the account's webhook secret; later deliveries use the new one"),
      },
    );
}
