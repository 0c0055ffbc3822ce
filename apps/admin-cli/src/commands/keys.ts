import type { Key, KeyCreate, KeyCreated } from "@gw/schemas";
import { list, text } from "../args.ts";
import { type Command, printJson } from "../command.ts";
import { ok } from "../failure.ts";
import { parseCount, parseExpiry, parseId, parseUsd } from "../flag-values.ts";
import { formatAllowList, formatExpiry, formatQuota, formatUnix } from "../format.ts";
import { nextPageNote, pageFlags, pageRequest, readPages } from "../pages.ts";
import { renderFields, renderTable } from "../table.ts";

/** A key without a budget of its own spends its account's wallet. */
function budget(key: Key): string {
  return key.quota === null ? "wallet" : formatQuota(key.quota);
}

function keyFields(key: Key): string {
  return renderFields([
    ["id", key.id],
    ["user", key.user_id],
    ["name", key.name],
    ["status", key.status],
    ["secret", `${key.key_hint} (hint only)`],
    ["budget", key.quota === null ? "none; spends the account's wallet" : budget(key)],
    ["used", formatQuota(key.used_quota)],
    ["rpm limit", key.rpm_limit === 0 ? "none" : String(key.rpm_limit)],
    ["models", formatAllowList(key.model_limits, "all")],
    ["allowed ips", formatAllowList(key.allowed_ips, "anywhere")],
    ["expires", formatExpiry(key.expires_at)],
    ["created", formatUnix(key.created_at)],
  ]);
}

const create: Command = {
  noun: "keys",
  verb: "create",
  summary: "Create an API key for an account; shows its secret once",
  positionals: [{ name: "user-id" }],
  flags: {
    name: { type: "string", value: "NAME", description: "Key name (default: default)" },
    "budget-usd": {
      type: "string",
      value: "USD",
      description: "The key's own budget (default: none, it spends the account's wallet)",
    },
    rpm: { type: "string", value: "N", description: "Requests per minute (default: no limit)" },
    models: { type: "string", value: "A,B", description: "Models the key may use (default: all)" },
    ips: {
      type: "string",
      value: "IP,CIDR",
      description: "Addresses the key may be used from (default: anywhere)",
    },
    expires: {
      type: "string",
      value: "WHEN",
      description: "never, unix seconds or an ISO date such as 2030-01-31 (default: never)",
    },
  },
  notes: ["Example: keys create 7 --name ci --budget-usd 5 --rpm 60 --expires 2030-01-31"],
  async run(context, { positionals, values }) {
    const id = parseId("user-id", positionals[0]!);
    if (!id.ok) return id;
    const body: KeyCreate = { user_id: id.value, name: text(values, "name") ?? "default" };
    const budgetUsd = text(values, "budget-usd");
    if (budgetUsd !== undefined) {
      const parsed = parseUsd("budget-usd", budgetUsd);
      if (!parsed.ok) return parsed;
      body.quota = Number(parsed.value.quota);
    }
    const rpm = text(values, "rpm");
    if (rpm !== undefined) {
      const parsed = parseCount("rpm", rpm);
      if (!parsed.ok) return parsed;
      body.rpm_limit = parsed.value;
    }
    const expires = text(values, "expires");
    if (expires !== undefined) {
      const parsed = parseExpiry(expires);
      if (!parsed.ok) return parsed;
      body.expires_at = parsed.value;
    }
    const models = list(values, "models");
    if (models !== undefined) body.model_limits = models;
    const ips = list(values, "ips");
    if (ips !== undefined) body.allowed_ips = ips;
    const key = await context.client.call<KeyCreated>("POST", "/admin/keys", body);
    if (!key.ok) return key;
    if (context.json) {
      printJson(context, key.value);
      return ok(undefined);
    }
    const { key: secret, ...shown } = key.value;
    context.out(
      [
        `Created key ${shown.id} for user ${shown.user_id}.`,
        "",
        "  Secret, shown this once (only its hash is kept; store it now):",
        "",
        `    ${secret}`,
        "",
        keyFields(shown),
      ].join("\n"),
    );
    return ok(undefined);
  },
};

const listKeys: Command = {
  noun: "keys",
  verb: "list",
  summary: "Keys of one account or of all, by id (never their secrets)",
  positionals: [{ name: "user-id", optional: true }],
  flags: pageFlags("Keys"),
  notes: [
    "A page with more behind it ends with the --after to give for the next one (on stderr).",
    "--json prints the api's page as it came; with --all, every key as one page.",
    "Example: keys list 7 --all",
  ],
  async run(context, { positionals, values }) {
    const request = pageRequest(values);
    if (!request.ok) return request;
    const query = new URLSearchParams();
    let userId: string | undefined;
    if (positionals[0] !== undefined) {
      const id = parseId("user-id", positionals[0]);
      if (!id.ok) return id;
      userId = id.value;
      query.set("user_id", userId);
    }
    const page = await readPages<Key>(context, "/admin/keys", query, request.value);
    if (!page.ok) return page;
    if (context.json) {
      printJson(context, page.value);
      return ok(undefined);
    }
    const keys = page.value.data;
    if (keys.length === 0) {
      const of = userId === undefined ? "" : ` of user ${userId}`;
      const after = request.value.after === undefined ? "" : ` after id ${request.value.after}`;
      context.out(`No keys${of}${after}.`);
      return ok(undefined);
    }
    context.out(
      renderTable(
        [
          { header: "id", align: "right" },
          { header: "user", align: "right" },
          { header: "name" },
          { header: "status" },
          { header: "hint" },
          { header: "budget", align: "right" },
          { header: "used", align: "right" },
          { header: "rpm", align: "right" },
          { header: "expires" },
        ],
        keys.map((key) => [
          key.id,
          key.user_id,
          key.name,
          key.status,
          key.key_hint,
          budget(key),
          formatQuota(key.used_quota),
          key.rpm_limit === 0 ? "-" : String(key.rpm_limit),
          formatExpiry(key.expires_at),
        ]),
      ),
    );
    if (page.value.has_more) {
      const command = userId === undefined ? "keys list" : `keys list ${userId}`;
      nextPageNote(context, command, request.value, keys.at(-1)!.id, "keys");
    }
    return ok(undefined);
  },
};

const show: Command = {
  noun: "keys",
  verb: "show",
  summary: "A key's settings and use (never its secret)",
  positionals: [{ name: "key-id" }],
  flags: {},
  async run(context, { positionals }) {
    const id = parseId("key-id", positionals[0]!);
    if (!id.ok) return id;
    const key = await context.client.call<Key>("GET", `/admin/keys/${id.value}`);
    if (!key.ok) return key;
    if (context.json) printJson(context, key.value);
    else context.out(keyFields(key.value));
    return ok(undefined);
  },
};

function setStatus(verb: "enable" | "disable"): Command {
  const status = verb === "enable" ? "enabled" : "disabled";
  return {
    noun: "keys",
    verb,
    summary:
      verb === "enable"
        ? "Let a disabled key authorize again"
        : "Stop a key at once (reversible: keys enable)",
    positionals: [{ name: "key-id" }],
    flags: {},
    async run(context, { positionals }) {
      const id = parseId("key-id", positionals[0]!);
      if (!id.ok) return id;
      const key = await context.client.call<Key>("PATCH", `/admin/keys/${id.value}`, { status });
      if (!key.ok) return key;
      if (context.json) printJson(context, key.value);
      else context.out(`Key ${key.value.id} is ${key.value.status}.`);
      return ok(undefined);
    },
  };
}

const remove: Command = {
  noun: "keys",
  verb: "delete",
  summary: "Delete a key for good (keys disable is reversible)",
  positionals: [{ name: "key-id" }],
  flags: {},
  async run(context, { positionals }) {
    const id = parseId("key-id", positionals[0]!);
    if (!id.ok) return id;
    const deleted = await context.client.call<void>("DELETE", `/admin/keys/${id.value}`);
    if (!deleted.ok) return deleted;
    // The api answers 204 with no body; --json still prints something a script can parse.
    if (context.json) printJson(context, { id: id.value, deleted: true });
    else context.out(`Deleted key ${id.value}; it never authorizes again.`);
    return ok(undefined);
  },
};

export const KEY_COMMANDS = [
  create,
  listKeys,
  show,
  setStatus("disable"),
  setStatus("enable"),
  remove,
];
