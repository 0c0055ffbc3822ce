import { type FlagSpecs, GLOBAL_FLAGS } from "./args.ts";
import type { Command } from "./command.ts";
import { COMMANDS } from "./commands/index.ts";
import { DEFAULT_URL } from "./connection.ts";

const NAME = "gw-admin";

function synopsis(command: Command): string {
  const args = command.positionals.map((spec) =>
    spec.optional ? `[<${spec.name}>]` : `<${spec.name}>`,
  );
  const specs = Object.entries(command.flags);
  const required = specs
    .filter(([, spec]) => spec.required)
    .map(([name, spec]) => `--${name} ${spec.value}`);
  const optional = specs.some(([, spec]) => !spec.required) ? ["[flags]"] : [];
  return [command.noun, command.verb, ...args, ...required, ...optional].join(" ");
}

function flagLines(flags: FlagSpecs): string[] {
  return aligned(
    Object.entries(flags).map(([name, spec]) => [
      `${spec.short ? `-${spec.short}, ` : ""}--${name}${spec.value ? ` ${spec.value}` : ""}`,
      spec.required ? `${spec.description} (required)` : spec.description,
    ]),
  );
}

function aligned(rows: [left: string, right: string][]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

function commandRows(commands: Command[]): [string, string][] {
  return commands.map((command) => [synopsis(command), command.summary]);
}

/** The whole grammar: every command, the global flags, and how it connects. */
export function generalHelp(): string {
  return [
    `${NAME}: accounts, keys, credits and endpoint closures over the gateway's admin API.`,
    "",
    `Usage: ${NAME} <noun> <verb> [arguments] [flags]    (from the repo: bun run admin ...)`,
    "",
    "Commands:",
    ...aligned([...commandRows(COMMANDS), ["help [<noun> [<verb>]]", "This help, or a command's"]]),
    "",
    "Global flags (before or after the command):",
    ...flagLines(GLOBAL_FLAGS),
    "",
    `Connects to $GATEWAY_URL (default ${DEFAULT_URL}) with the token in $ADMIN_TOKEN;`,
    "--url, --token and --token-file override them. Amounts are USD (a key's budget too).",
    "Exit status: 0 done; 1 the gateway refused or could not be reached; 2 a usage error.",
  ].join("\n");
}

/** One noun's commands, for `help users` or a noun given without a verb. */
export function nounHelp(noun: string): string {
  return [
    `Usage: ${NAME} ${noun} <verb> ...`,
    "",
    ...aligned(commandRows(COMMANDS.filter((command) => command.noun === noun))),
    "",
    `${NAME} help ${noun} <verb> shows a command's flags.`,
  ].join("\n");
}

export function commandHelp(command: Command): string {
  const flags = Object.keys(command.flags).length > 0;
  return [
    `Usage: ${NAME} ${synopsis(command)}`,
    "",
    `${command.summary}.`,
    ...(flags ? ["", "Flags:", ...flagLines(command.flags)] : []),
    "",
    "Global flags: --url URL, --token TOKEN, --token-file PATH, --json (see gw-admin help).",
    ...(command.notes ? ["", ...command.notes] : []),
  ].join("\n");
}
