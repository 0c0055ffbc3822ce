import { createKey, deleteKey, findKey, findUser, updateKey } from "@gw/accounts";
import { normalizeAllowList } from "@gw/auth";
import { ErrorBody, IdParam, Key, KeyCreate, KeyCreated, KeyPatch } from "@gw/schemas";
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { adminGuard } from "./guard.ts";
import { presentKey } from "./present.ts";

function allowList(ips: string[] | undefined): string[] | undefined {
  if (ips === undefined) return undefined;
  const normalized = normalizeAllowList(ips);
  if (!normalized.ok) {
    throw new ApiError(
      "invalid_request",
      `Invalid body field 'allowed_ips': "${normalized.invalid}" is not an IP or CIDR`,
    );
  }
  return normalized.value;
}

/**
 * The largest id an account can have as the admin API writes ids (18 digits, the `Id`
 * pattern); a numeric `user_id` beyond it names no account, and beyond int8 it would fail
 * the lookup itself.
 */
const MAX_USER_ID = 999_999_999_999_999_999n;

function quotaLimit(quota: number | null | undefined): bigint | null | undefined {
  return quota === undefined || quota === null ? quota : BigInt(quota);
}

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };
const detail = (summary: string) => ({ tags: ["admin"], summary, security: [{ admin: [] }] });

export function adminKeyRoutes({ config, sql, ledger }: AppContext) {
  return new Elysia({ name: "gw/routes/admin/keys" })
    .use(adminGuard(config.adminToken))
    .post(
      "/admin/keys",
      async ({ body, set }) => {
        const userId = BigInt(body.user_id);
        const ips = allowList(body.allowed_ips) ?? [];
        if (userId > MAX_USER_ID || !(await findUser(sql, userId))) {
          throw new ApiError(
            "invalid_request",
            `Invalid body field 'user_id': no user ${body.user_id}`,
          );
        }
        const { key, secret } = await createKey(sql, ledger, userId, {
          name: body.name,
          quotaLimit: quotaLimit(body.quota) ?? null,
          rpmLimit: body.rpm_limit ?? 0,
          modelLimits: body.model_limits ?? [],
          allowedIps: ips,
          expiresAt: body.expires_at ?? 0,
        });
        set.status = 201;
        return { ...presentKey(key), key: secret };
      },
      {
        body: KeyCreate,
        response: { 201: KeyCreated, ...errors },
        detail: detail("Create a key; its secret is in this response only"),
      },
    )
    .get(
      "/admin/keys/:id",
      async ({ params }) => {
        const key = await findKey(sql, BigInt(params.id));
        if (!key) throw new ApiError("not_found", `No key ${params.id}`);
        return presentKey(key);
      },
      {
        params: IdParam,
        response: { 200: Key, ...errors },
        detail: detail("Read a key (never its secret)"),
      },
    )
    .patch(
      "/admin/keys/:id",
      async ({ params, body }) => {
        const key = await updateKey(sql, ledger, BigInt(params.id), {
          name: body.name,
          status: body.status,
          quotaLimit: quotaLimit(body.quota),
          rpmLimit: body.rpm_limit,
          modelLimits: body.model_limits,
          allowedIps: allowList(body.allowed_ips),
          expiresAt: body.expires_at,
        });
        if (!key) throw new ApiError("not_found", `No key ${params.id}`);
        return presentKey(key);
      },
      {
        params: IdParam,
        body: KeyPatch,
        response: { 200: Key, ...errors },
        detail: detail("Change a key"),
      },
    )
    .delete(
      "/admin/keys/:id",
      async ({ params }) => {
        if (!(await deleteKey(sql, BigInt(params.id))))
          throw new ApiError("not_found", `No key ${params.id}`);
        return new Response(null, { status: 204 });
      },
      {
        params: IdParam,
        response: { 204: t.Void(), ...errors },
        detail: detail("Delete a key; it never authorizes again"),
      },
    );
}
