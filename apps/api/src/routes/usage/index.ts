import type { Principal } from "@gw/accounts";
import { KEY_LOG_LIMIT, keyLog, spendPage, spendRecords, spendSummary } from "@gw/ledger";
import {
  ErrorBody,
  KeyLog,
  SpendHistory,
  SpendHistoryQuery,
  SpendPeriodQuery,
  SpendSummary,
  TokenUsage,
} from "@gw/schemas";
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { BEARER_OR_API_KEY } from "../docs.ts";
import { csvStream } from "./csv.ts";
import { parseHistoryQuery, parsePeriod } from "./period.ts";
import { presentKeyLog, presentRecord, presentSummary } from "./present.ts";

/**
 * The key's budget in quota. A key without a budget spends the owner's wallet, so its
 * available amount is the wallet balance and its grant is what it used plus that.
 */
export function tokenUsage(principal: Principal): TokenUsage {
  const unlimited = principal.quotaLimit === null;
  const used = principal.usedQuota;
  const available = unlimited
    ? principal.balanceQuota > 0n
      ? principal.balanceQuota
      : 0n
    : principal.quotaLimit! > used
      ? principal.quotaLimit! - used
      : 0n;
  const granted = unlimited ? used + available : principal.quotaLimit!;
  return {
    code: true,
    message: "ok",
    data: {
      object: "token_usage",
      name: principal.keyName,
      total_granted: Number(granted),
      total_used: Number(used),
      total_available: Number(available),
      unlimited_quota: unlimited,
      rpm_limit: principal.rpmLimit,
      model_limits: Object.fromEntries(principal.modelLimits.map((model) => [model, true])),
      model_limits_enabled: principal.modelLimits.length > 0,
      expires_at: principal.expiresAt,
    },
  };
}

/**
 * GET /api/usage/token/: read-only authorization, so a disabled, expired or exhausted key
 * may look; the critical IP tier where enabled (spec 8.3).
 */
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** CSV when the client asks for it by `?format=csv`, or by an Accept header naming text/csv unless `?format=json` says otherwise. */
const wantsCsv = (request: Request, format: string | undefined) =>
  format === "csv" ||
  (format === undefined && /\btext\/csv\b/i.test(request.headers.get("accept") ?? ""));

const ERRORS = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };

/**
 * Spend history (spec 4.10): the whole account's charges and refunds, its summary, and
 * the key's own log. Free; the critical IP tier where enabled (spec 8.3). The two
 * `/api/usage/self/` calls take `x-api-key` too and admit an exhausted key (not a disabled
 * or expired one); the key log uses read-only authorization.
 */
export function usageRoutes({ auth, rateLimit, sql }: AppContext) {
  const selfAuth = { mode: "spend_history" as const, apiKeyHeader: true };
  return new Elysia({ name: "gw/routes/usage" })
    .use(auth)
    .use(rateLimit)
    .get(
      "/api/usage/self/requests",
      async ({ principal, query, request }) => {
        const parsed = parseHistoryQuery(query, nowSeconds());
        const scope = { userId: principal.userId, start: parsed.start, end: parsed.end };
        if (wantsCsv(request, query.format)) {
          const batches = spendRecords(sql, { ...scope, before: parsed.cursor });
          // A raw Response is exempt from the JSON schema; the cast tells the types so.
          return new Response(csvStream(batches), {
            headers: {
              "content-type": "text/csv; charset=utf-8",
              "content-disposition": `attachment; filename="spend-${parsed.start}-${parsed.end}.csv"`,
              "cache-control": "no-store",
            },
          }) as never;
        }
        const page = await spendPage(sql, { ...scope, limit: parsed.limit, before: parsed.cursor });
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
        auth: selfAuth,
        limit: { tier: "critical" },
        query: SpendHistoryQuery,
        response: { 200: SpendHistory, ...ERRORS },
        detail: {
          tags: ["usage"],
          summary: "The account's charges and refunds, newest first (keyset pages; CSV on request)",
          security: BEARER_OR_API_KEY,
          responses: {
            200: {
              description:
                "A page of records; with `format=csv` (or `Accept: text/csv`) every record of the period as CSV",
              content: {
                "text/csv": {
                  schema: t.String({
                    description: "A header line, then one line per record, newest first.",
                  }),
                },
              },
            },
          },
        },
      },
    )
    .get(
      "/api/usage/self/summary",
      async ({ principal, query }) => {
        const period = parsePeriod(query, nowSeconds());
        const summary = await spendSummary(sql, principal.userId, period);
        return { success: true, data: presentSummary(summary, period) };
      },
      {
        auth: selfAuth,
        limit: { tier: "critical" },
        query: SpendPeriodQuery,
        response: { 200: SpendSummary, ...ERRORS },
        detail: {
          tags: ["usage"],
          summary: "The account's spend over a period, net of refunds",
          security: BEARER_OR_API_KEY,
        },
      },
    )
    .get(
      "/api/log/token",
      async ({ principal }) => {
        const records = await keyLog(sql, principal.keyId);
        return { success: true, message: "", data: records.map(presentKeyLog) };
      },
      {
        auth: { mode: "read_only" },
        limit: { tier: "critical" },
        response: { 200: KeyLog, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
        detail: {
          tags: ["usage"],
          summary: `This key's newest ${KEY_LOG_LIMIT} charges and refunds, newest first`,
        },
      },
    )
    .get("/api/usage/token/", ({ principal }) => tokenUsage(principal), {
      auth: { mode: "read_only" },
      limit: { tier: "critical" },
      response: { 200: TokenUsage, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
      detail: {
        tags: ["usage"],
        summary: "Budget, spend and limits of the passed key (quota units)",
        description: "Served with and without the trailing slash (`/api/usage/token/`).",
      },
    });
}
