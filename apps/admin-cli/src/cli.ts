import { parseFlags, splitWords } from "./args.ts";
import { adminClient } from "./client.ts";
import type { Context } from "./command.ts";
import { findCommand, NOUNS } from "./commands/index.ts";
import { resolveConnection } from "./connection.ts";
import { describeFailure, exitCodeOf, type Failure } from "./failure.ts";
import { commandHelp, generalHelp, nounHelp } from "./help.ts";

export interface Io {
  out(text: string): void;
  err(text: string): void;
}

const PREFIX = "gw-admin:";

function report(io: Io, failure: Failure, help?: string): number {
  io.err(`${PREFIX} ${describeFailure(failure)}`);
  if (help !== undefined) io.err(`\n${help}`);
  return exitCodeOf(failure);
}

const usageFailure = (message: string): Failure => ({ code: "usage", message });

/** `help`, `help <noun>`, `help <noun> <verb>`: to stdout, exit 0; an unknown topic is a usage error. */
function help(io: Io, noun: string | undefined, verb: string | undefined): number {
  if (noun === undefined) {
    io.out(generalHelp());
    return 0;
  }
  if (!NOUNS.includes(noun)) return report(io, usageFailure(`No command '${noun}'`), generalHelp());
  if (verb === undefined) {
    io.out(nounHelp(noun));
    return 0;
  }
  const command = findCommand(noun, verb);
  if (!command) return report(io, usageFailure(`No command '${noun} ${verb}'`), nounHelp(noun));
  io.out(commandHelp(command));
  return 0;
}

/** Runs one command line; answers the exit status (0 done, 1 refused or unreachable, 2 usage). */
export async function run(
  argv: string[],
  env: Record<string, string | undefined>,
  io: Io,
): Promise<number> {
  const asksHelp = argv.includes("--help") || argv.includes("-h");
  const { words, rest } = splitWords(argv, argv[0] === "help" ? 3 : 2);
  const [noun, verb] = words;
  if (noun === "help") return help(io, words[1], words[2]);
  if (noun === undefined) {
    if (asksHelp) return help(io, undefined, undefined);
    return report(io, usageFailure("Give a command"), generalHelp());
  }
  if (!NOUNS.includes(noun))
    return report(io, usageFailure(`Unknown command '${noun}'`), generalHelp());
  if (verb === undefined) {
    if (asksHelp) return help(io, noun, undefined);
    return report(io, usageFailure(`'${noun}' needs a verb`), nounHelp(noun));
  }
  const command = findCommand(noun, verb);
  if (!command)
    return report(io, usageFailure(`Unknown command '${noun} ${verb}'`), nounHelp(noun));
  const parsed = parseFlags(rest, command.flags, command.positionals);
  if (!parsed.ok)
    return report(io, parsed.failure, `Run 'gw-admin help ${noun} ${verb}' for its flags.`);
  if (parsed.value.values.help) return help(io, noun, verb);

  const connection = resolveConnection(parsed.value.values, env);
  if (!connection.ok) return report(io, connection.failure);
  const context: Context = {
    client: adminClient(connection.value),
    json: parsed.value.values.json === true,
    out: io.out,
    note: io.err,
  };
  const result = await command.run(context, parsed.value);
  return result.ok ? 0 : report(io, result.failure);
}
