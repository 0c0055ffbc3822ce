import type { SpendHistory, User, UserCreate } from "@gw/schemas";
import { list, text } from "../args.ts";
import { type Command, type Context, printJson } from "../command.ts";
import { ok, type Result } from "../failure.ts";
import { parseCount, parseDiscount, parseId, parseUsd } from "../flag-values.ts";
import { formatAllowList, formatDiscount, formatUnix, formatUsd } from "../format.ts";
import { nextPageNote, PAGE_MAX, pageFlags, pageRequest, readPages } from "../pages.ts";
import { renderFields, renderTable } from "../table.ts";

/** How many of an account's newest charges and refunds `users show` lists by default. */
const RECENT_DEFAULT = 10;
/** The longest period the spend read takes (GET /admin/users/:id/requests). */
const RECENT_DAYS = 90;
/**
 * The period ends this far past this machine's clock: a gateway whose clock is ahead
 * still shows its newest records, and the api takes an end up to a day ahead.
 */
const CLOCK_SLACK_SECONDS = 3600;

export function userFields(user: User): string {
  return renderFields([
    ["id", user.id],
    ["name", user.name],
    ["status", user.status],
    ["balance", formatUsd(user.balance_usd)],
    ["total spent", formatUsd(user.total_spent_usd)],
    ["discount", formatDiscount(user.discount)],
    ["models", formatAllowList(user.allowed_models, "all")],
  ]);
}

/** An account's charges and refunds, as GET /admin/users/:id/requests answers them. */
type Recent = SpendHistory["data"];

function recentTable(recent: Recent): string {
  return renderTable(
    [
      { header: "time" },
      { header: "model" },
      { header: "kind" },
      { header: "usd", align: "right" },
      { header: "request id" },
    ],
    recent.items.map((item) => [
      formatUnix(item.created_at),
      item.model ?? "-",
      item.kind,
      formatUsd(item.amount_usd),
      item.request_id ?? "-",
    ]),
  );
}

const create: Command = {
  noun: "users",
  verb: "create",
  summary: "Create an account, optionally with an opening balance",
  positionals: [],
  flags: {
    name: { type: "string", value: "NAME", required: true, description: "Account name" },
    "balance-usd": { type: "string", value: "USD", description: "Opening balance (default 0)" },
    discount: {
      type: "string",
      value: "FRACTION",
      description: "Taken off every charge: 0.1 or 10% (default none)",
    },
    models: {
      type: "string",
      value: "A,B",
      description: "Models the account may use (default: all)",
    },
    disabled: { type: "boolean", description: "Create it disabled" },
  },
  notes: ["Example: users create --name acme --balance-usd 25 --discount 10%"],
  async run(context, { values }) {
    const body: UserCreate = { name: text(values, "name")! };
    const balance = text(values, "balance-usd");
    if (balance !== undefined) {
      const parsed = parseUsd("balance-usd", balance);
      if (!parsed.ok) return parsed;
      body.balance_usd = parsed.value.usd;
    }
    const discount = text(values, "discount");
    if (discount !== undefined) {
      const parsed = parseDiscount(discount);
      if (!parsed.ok) return parsed;
      body.discount = parsed.value;
    }
    const models = list(values, "models");
    if (models !== undefined) body.allowed_models = models;
    if (values.disabled) body.status = "disabled";
    const user = await context.client.call<User>("POST", "/admin/users", body);
    if (!user.ok) return user;
    if (context.json) printJson(context, user.value);
    else context.out(`Created user ${user.value.id}.\n${userFields(user.value)}`);
    return ok(undefined);
  },
};

const show: Command = {
  noun: "users",
  verb: "show",
  summary: "An account's balance, spend and settings, and its recent charges",
  positionals: [{ name: "user-id" }],
  flags: {
    recent: {
      type: "string",
      value: "N",
      description: `How many of the newest charges and refunds to list, 1 to ${PAGE_MAX} (default ${RECENT_DEFAULT})`,
    },
  },
  notes: [
    `Charges and refunds of the last ${RECENT_DAYS} days, newest first; a credit (top-up) is`,
    'neither. --json prints {"user": ..., "recent": {"items": [...], "has_more": ...}}.',
  ],
  async run(context, { positionals, values }) {
    const id = parseId("user-id", positionals[0]!);
    if (!id.ok) return id;
    const recentFlag = text(values, "recent") ?? String(RECENT_DEFAULT);
    const count = parseCount("recent", recentFlag, PAGE_MAX, 1);
    if (!count.ok) return count;
    const user = await context.client.call<User>("GET", `/admin/users/${id.value}`);
    if (!user.ok) return user;
    if (!context.json) context.out(userFields(user.value));
    const recent = await recentSpend(context, id.value, count.value);
    if (!recent.ok) return recent;
    if (context.json) {
      printJson(context, { user: user.value, recent: recent.value });
      return ok(undefined);
    }
    if (recent.value.items.length === 0) {
      context.out(`\nNo charges or refunds in the last ${RECENT_DAYS} days.`);
      return ok(undefined);
    }
    context.out(`\nRecent charges and refunds, newest first:\n${recentTable(recent.value)}`);
    if (recent.value.has_more)
      context.note(
        count.value < PAGE_MAX
          ? `(the newest ${count.value} shown; --recent ${PAGE_MAX} shows up to ${PAGE_MAX})`
          : `(the newest ${PAGE_MAX} shown; older ones: GET /admin/users/${id.value}/requests with cursor=${recent.value.next_cursor})`,
      );
    return ok(undefined);
  },
};

/** The newest `count` charges and refunds of the last RECENT_DAYS days. */
async function recentSpend(context: Context, id: string, count: number): Promise<Result<Recent>> {
  const end = Math.floor(Date.now() / 1000) + CLOCK_SLACK_SECONDS;
  const query = new URLSearchParams({
    limit: String(count),
    start_timestamp: String(end - RECENT_DAYS * 86_400),
    end_timestamp: String(end),
  });
  const history = await context.client.call<SpendHistory>(
    "GET",
    `/admin/users/${id}/requests?${query}`,
  );
  return history.ok ? ok(history.value.data) : history;
}

const listUsers: Command = {
  noun: "users",
  verb: "list",
  summary: "Accounts by id, a page at a time (--all for every one)",
  positionals: [],
  flags: pageFlags("Accounts"),
  notes: [
    "A page with more behind it ends with the --after to give for the next one (on stderr).",
    "--json prints the api's page as it came; with --all, every account as one page.",
    "Example: users list --all --json | jq -r '.data[] | [.id, .name] | @tsv'",
  ],
  async run(context, { values }) {
    const request = pageRequest(values);
    if (!request.ok) return request;
    const page = await readPages<User>(
      context,
      "/admin/users",
      new URLSearchParams(),
      request.value,
    );
    if (!page.ok) return page;
    if (context.json) {
      printJson(context, page.value);
      return ok(undefined);
    }
    const users = page.value.data;
    if (users.length === 0) {
      const after = request.value.after;
      context.out(after === undefined ? "No accounts." : `No accounts after id ${after}.`);
      return ok(undefined);
    }
    context.out(
      renderTable(
        [
          { header: "id", align: "right" },
          { header: "name" },
          { header: "status" },
          { header: "balance", align: "right" },
          { header: "spent", align: "right" },
        ],
        users.map((user) => [
          user.id,
          user.name,
          user.status,
          formatUsd(user.balance_usd),
          formatUsd(user.total_spent_usd),
        ]),
      ),
    );
    if (page.value.has_more)
      nextPageNote(context, "users list", request.value, users.at(-1)!.id, "accounts");
    return ok(undefined);
  },
};

function setStatus(verb: "enable" | "disable"): Command {
  const status = verb === "enable" ? "active" : "disabled";
  return {
    noun: "users",
    verb,
    summary:
      verb === "enable"
        ? "Let a disabled account's keys work again"
        : "Stop every key of an account until it is enabled",
    positionals: [{ name: "user-id" }],
    flags: {},
    async run(context, { positionals }) {
      const id = parseId("user-id", positionals[0]!);
      if (!id.ok) return id;
      const user = await context.client.call<User>("PATCH", `/admin/users/${id.value}`, {
        status,
      });
      if (!user.ok) return user;
      if (context.json) printJson(context, user.value);
      else context.out(`User ${user.value.id} is ${user.value.status}.`);
      return ok(undefined);
    },
  };
}

export const USER_COMMANDS = [create, listUsers, show, setStatus("disable"), setStatus("enable")];
