import type { Command } from "../command.ts";
import { CREDIT_COMMANDS } from "./credits.ts";
import { ENDPOINT_COMMANDS } from "./endpoints.ts";
import { KEY_COMMANDS } from "./keys.ts";
import { USER_COMMANDS } from "./users.ts";

/** Every `<noun> <verb>`, in the order help lists them. */
export const COMMANDS: Command[] = [
  ...USER_COMMANDS,
  ...CREDIT_COMMANDS,
  ...KEY_COMMANDS,
  ...ENDPOINT_COMMANDS,
];

export const NOUNS = [...new Set(COMMANDS.map((command) => command.noun))];

export function findCommand(noun: string, verb: string): Command | undefined {
  return COMMANDS.find((command) => command.noun === noun && command.verb === verb);
}
