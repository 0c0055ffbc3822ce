import { ApiError } from "../../errors.ts";

const DAY = 86_400;
export const DEFAULT_PERIOD_SECONDS = 30 * DAY;
export const MAX_PERIOD_SECONDS = 90 * DAY;
/** How far past now a period may end. */
export const MAX_FUTURE_SECONDS = DAY;
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;
const MAX_BIGINT = 9_223_372_036_854_775_807n;

export interface PeriodQuery {
  start_timestamp?: string;
  end_timestamp?: string;
}

export interface HistoryQuery extends PeriodQuery {
  limit?: string;
  cursor?: string;
  format?: string;
}

const invalid = (parameter: string, rule: string) =>
  new ApiError("invalid_request", `Invalid query parameter '${parameter}': ${rule}`);

/** A whole number of the query, or undefined when absent; anything else names the parameter. */
function integer(query: Record<string, string | undefined>, name: string): bigint | undefined {
  const text = query[name];
  if (text === undefined) return undefined;
  if (!/^-?\d{1,19}$/.test(text)) throw invalid(name, "must be an integer");
  return BigInt(text);
}

/**
 * The period of a spend query (spec 4.10): `start_timestamp` inclusive, `end_timestamp`
 * exclusive, Unix seconds. Defaults: the end is now (the end of the current second), the start 30 days before the end.
 * The period is at most 90 days and ends at most one day after now.
 */
export function parsePeriod(
  query: PeriodQuery,
  nowSeconds: number,
): { start: number; end: number } {
  const rawStart = integer(query as Record<string, string>, "start_timestamp");
  const rawEnd = integer(query as Record<string, string>, "end_timestamp");
  if (rawStart !== undefined && rawStart < 0n)
    throw invalid("start_timestamp", "must not be negative");
  if (rawEnd !== undefined && rawEnd < 0n) throw invalid("end_timestamp", "must not be negative");
  if (rawEnd !== undefined && rawEnd > BigInt(nowSeconds + MAX_FUTURE_SECONDS))
    throw invalid("end_timestamp", "must be at most one day in the future");
  // The default end closes the current second, so a record made a moment ago is in.
  const end = rawEnd === undefined ? nowSeconds + 1 : Number(rawEnd);
  if (rawStart !== undefined && rawStart >= BigInt(end))
    throw invalid("start_timestamp", "must be before end_timestamp");
  const start =
    rawStart === undefined ? Math.max(0, end - DEFAULT_PERIOD_SECONDS) : Number(rawStart);
  if (end - start > MAX_PERIOD_SECONDS)
    throw invalid("start_timestamp", "the period may span at most 90 days");
  return { start, end };
}

/** Period, page size and cursor of `GET /api/usage/self/requests`. */
export function parseHistoryQuery(query: HistoryQuery, nowSeconds: number) {
  const period = parsePeriod(query, nowSeconds);
  const limit = integer(query as Record<string, string>, "limit");
  if (limit !== undefined && (limit < 1n || limit > BigInt(MAX_LIMIT)))
    throw invalid("limit", `must be between 1 and ${MAX_LIMIT}`);
  const cursor = integer(query as Record<string, string>, "cursor");
  if (cursor !== undefined && (cursor < 1n || cursor > MAX_BIGINT))
    throw invalid("cursor", "must be a positive integer (the next_cursor of the previous page)");
  if (query.format !== undefined && query.format !== "csv" && query.format !== "json")
    throw invalid("format", "must be csv or json");
  return { ...period, limit: limit === undefined ? DEFAULT_LIMIT : Number(limit), cursor };
}
