import { listKeys, listUsers } from "@gw/accounts";
import { spendPage } from "@gw/ledger";
import {
  ErrorBody,
  IdParam,
  KeyList,
  KeyListQuery,
  SpendHistory,
  SpendHistoryQuery,
  UserList,
  UserListQuery,
} from "@gw/schemas";
import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { parseHistoryQuery } from "../usage/period.ts";
import { presentRecord } from "../usage/present.ts";
import { adminGuard } from "./guard.ts";
import { presentKey, presentUser } from "./present.ts";

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };
const detail = (summary: string) => ({ tags: ["admin"], summary, security: [{ admin: [] }] });

function limitOf(value: string | undefined): number {
  if (value === undefined) return 50;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new ApiError("invalid_request", "Invalid query field 'limit': use 1 to 100");
  return limit;
}

/**
 * Admin reads for operators and the admin CLI: accounts and keys in id order (keyset
 * pages), and one account's charges and refunds, as the account itself sees them.
 */
export function adminListRoutes({ config, sql }: AppContext) {
  return new Elysia({ name: "gw/routes/admin/lists" })
    .use(adminGuard(config.adminToken))
    .get(
      "/admin/users",
      async ({ query }) => {
        const page = await listUsers(sql, {
          limit: limitOf(query.limit),
          afterId: BigInt(query.after ?? "0"),
        });
        return { data: page.users.map(presentUser), has_more: page.hasMore };
      },
      {
        query: UserListQuery,
        response: { 200: UserList, ...errors },
        detail: detail("List accounts, oldest first"),
      },
    )
    .get(
      "/admin/keys",
      async ({ query }) => {
        const page = await listKeys(sql, {
          ...(query.user_id === undefined ? {} : { userId: BigInt(query.user_id) }),
          limit: limitOf(query.limit),
          afterId: BigInt(query.after ?? "0"),
        });
        return { data: page.keys.map(presentKey), has_more: page.hasMore };
      },
      {
        query: KeyListQuery,
        response: { 200: KeyList, ...errors },
        detail: detail("List keys (all, or one account's), oldest first"),
      },
    )
    .get(
      "/admin/users/:id/requests",
      async ({ params, query }) => {
        const [user] = await sql`select id from users where id = ${BigInt(params.id)}`;
        if (!user) throw new ApiError("not_found", `No user ${params.id}`);
        const parsed = parseHistoryQuery(query, Math.floor(Date.now() / 1000));
        const page = await spendPage(sql, {
          userId: BigInt(params.id),
          start: parsed.start,
          end: parsed.end,
          limit: parsed.limit,
          before: parsed.cursor,
        });
        return {
          success: true,
          data: {
            items: page.records.map(presentRecord),
            has_more: page.nextCursor !== null,
            ...(page.nextCursor === null ? {} : { next_cursor: Number(page.nextCursor) }),
          },
        };
      },
      {
        params: IdParam,
        query: SpendHistoryQuery,
        response: { 200: SpendHistory, ...errors },
        detail: detail(
          "An account's charges and refunds, newest first (as GET /api/usage/self/requests)",
        ),
      },
    );
}
