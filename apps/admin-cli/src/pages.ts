import { type FlagSpecs, text, type Values } from "./args.ts";
import type { Context } from "./command.ts";
import { ok, type Result, usage } from "./failure.ts";
import { parseCount } from "./flag-values.ts";

/** The admin API's page size limits (`limit` of GET /admin/users and /admin/keys). */
export const PAGE_MAX = 100;

/** One answer of an admin list: rows by id ascending, and whether more follow. */
export interface Page<T> {
  data: T[];
  has_more: boolean;
}

/** `--limit`, `--after` and `--all`, as every list command takes them. */
export function pageFlags(rows: string): FlagSpecs {
  return {
    limit: {
      type: "string",
      value: "N",
      description: `${rows} per page, 1 to ${PAGE_MAX} (default: the api's 50; ${PAGE_MAX} with --all)`,
    },
    after: {
      type: "string",
      value: "ID",
      description: "Start after this id: the one the previous page's footer names",
    },
    all: { type: "boolean", description: "Follow the pages to the end" },
  };
}

export interface PageRequest {
  /** Page size for the query and the next-page hint; undefined when not given. */
  limit: string | undefined;
  after: string | undefined;
  all: boolean;
}

/** The list flags, checked here so a wrong one is a usage error rather than the api's 400. */
export function pageRequest(values: Values): Result<PageRequest> {
  let limit = text(values, "limit");
  if (limit !== undefined) {
    const checked = parseCount("limit", limit, PAGE_MAX, 1);
    if (!checked.ok) return checked;
    limit = String(checked.value);
  }
  const after = text(values, "after");
  if (after !== undefined && !/^[0-9]{1,18}$/.test(after))
    return usage(`--after takes an id (a number), got '${after}'`);
  return ok({ limit, after, all: values.all === true });
}

/**
 * One page as the api answered it, or with `--all` every page from `after` on, followed
 * by the last id of each (keyset: rows made meanwhile never shift a page), as one page.
 */
export async function readPages<T extends { id: string }>(
  context: Context,
  path: string,
  query: URLSearchParams,
  request: PageRequest,
): Promise<Result<Page<T>>> {
  const limit = request.limit ?? (request.all ? String(PAGE_MAX) : undefined);
  if (limit !== undefined) query.set("limit", limit);
  if (request.after !== undefined) query.set("after", request.after);
  const data: T[] = [];
  for (;;) {
    const page = await context.client.call<Page<T>>("GET", `${path}?${query}`);
    if (!page.ok || !request.all) return page;
    data.push(...page.value.data);
    const last = page.value.data.at(-1);
    if (!page.value.has_more || last === undefined) return ok({ data, has_more: false });
    query.set("after", last.id);
  }
}

/**
 * After a page with more behind it: the command line that shows the next one, on stderr
 * so that stdout stays the table.
 */
export function nextPageNote(
  context: Context,
  command: string,
  request: PageRequest,
  lastId: string,
  rows: string,
): void {
  const limit = request.limit === undefined ? "" : ` --limit ${request.limit}`;
  context.note(
    `More ${rows} follow: gw-admin ${command}${limit} --after ${lastId} (or --all for every page)`,
  );
}
