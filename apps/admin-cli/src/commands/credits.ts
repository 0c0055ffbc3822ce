import type { CreditBody, User } from "@gw/schemas";
import { text } from "../args.ts";
import { type Command, printJson } from "../command.ts";
import { ok } from "../failure.ts";
import { parseId, parseUsd } from "../flag-values.ts";
import { formatUsd } from "../format.ts";
import { userFields } from "./users.ts";

const add: Command = {
  noun: "credits",
  verb: "add",
  summary: "Top up an account's wallet (a ledger credit, not spend)",
  positionals: [{ name: "user-id" }],
  flags: {
    usd: {
      type: "string",
      value: "USD",
      required: true,
      description: "Amount to add, more than 0",
    },
    note: { type: "string", value: "TEXT", description: "Why, kept with the ledger entry" },
  },
  notes: ["Example: credits add 7 --usd 5 --note 'November invoice'"],
  async run(context, { positionals, values }) {
    const id = parseId("user-id", positionals[0]!);
    if (!id.ok) return id;
    const usd = parseUsd("usd", text(values, "usd")!, { positive: true });
    if (!usd.ok) return usd;
    const body: CreditBody = { amount_usd: usd.value.usd };
    const note = text(values, "note");
    if (note !== undefined) body.note = note;
    const user = await context.client.call<User>("POST", `/admin/users/${id.value}/credits`, body);
    if (!user.ok) return user;
    if (context.json) printJson(context, user.value);
    else
      context.out(
        `Added ${formatUsd(usd.value.usd)} to user ${user.value.id}; the balance is now ${formatUsd(user.value.balance_usd)}.\n${userFields(user.value)}`,
      );
    return ok(undefined);
  },
};

export const CREDIT_COMMANDS = [add];
