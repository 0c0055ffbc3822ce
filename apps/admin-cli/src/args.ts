import { parseArgs } from "node:util";
import { ok, type Result, usage } from "./failure.ts";

export interface FlagSpec {
  type: "string" | "boolean";
  /** The placeholder help shows for a string flag's value, e.g. USD. */
  value?: string;
  short?: string;
  /** The command cannot run without it; help shows it in the synopsis. */
  required?: boolean;
  description: string;
}
export type FlagSpecs = Record<string, FlagSpec>;

export interface PositionalSpec {
  name: string;
  optional?: boolean;
}

export type Values = Record<string, string | boolean | undefined>;

export interface Parsed {
  values: Values;
  positionals: string[];
}

/** Flags every command takes; they may come before or after the command words. */
export const GLOBAL_FLAGS: FlagSpecs = {
  url: {
    type: "string",
    value: "URL",
    description: "Gateway address (default: $GATEWAY_URL, else http://localhost:3000)",
  },
  token: {
    type: "string",
    value: "TOKEN",
    // A token in argv shows in `ps`, and `bun run admin` echoes its arguments to stderr.
    description: "Admin token (default: $ADMIN_TOKEN); shows in ps, prefer --token-file",
  },
  "token-file": {
    type: "string",
    value: "PATH",
    description: "Read the admin token from a file (default: .data/admin-token if present)",
  },
  json: { type: "boolean", description: "Print the API's JSON answer instead of a table" },
  help: { type: "boolean", short: "h", description: "Show help for the command" },
};

/** Global string flags, whose next argument is their value and never a command word. */
const GLOBAL_VALUED = new Set(
  Object.entries(GLOBAL_FLAGS)
    .filter(([, spec]) => spec.type === "string")
    .map(([name]) => `--${name}`),
);

/**
 * Takes the command words (noun and verb) out of the arguments; what remains is flags and
 * the command's own arguments. Global flags may come first (`--json users list`).
 */
export function splitWords(argv: string[], maxWords = 2): { words: string[]; rest: string[] } {
  const words: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg.startsWith("-") && arg.length > 1) {
      rest.push(arg);
      if (GLOBAL_VALUED.has(arg) && i + 1 < argv.length) rest.push(argv[++i]!);
    } else if (words.length < maxWords) {
      words.push(arg);
    } else {
      rest.push(arg);
    }
  }
  return { words, rest };
}

/** The first sentence of node:util's message, which goes on to explain `--` escaping. */
function firstSentence(message: string): string {
  return message.split("\n")[0]!.split(". ")[0]!.replace(/\.$/, "");
}

/** Parses flags and arguments strictly: an unknown flag or a missing argument is a usage error. */
export function parseFlags(
  args: string[],
  flags: FlagSpecs,
  positionals: PositionalSpec[],
): Result<Parsed> {
  const options = Object.fromEntries(
    Object.entries({ ...GLOBAL_FLAGS, ...flags }).map(([name, spec]) => [
      name,
      spec.short ? { type: spec.type, short: spec.short } : { type: spec.type },
    ]),
  );
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    return usage(firstSentence((error as Error).message));
  }
  if (parsed.values.help) return ok(parsed);
  const absent = Object.entries(flags).find(
    ([name, spec]) => spec.required && (parsed.values[name] ?? "") === "",
  );
  if (absent) return usage(`Missing --${absent[0]} ${absent[1].value ?? ""}`.trimEnd());
  const required = positionals.filter((spec) => !spec.optional).length;
  if (parsed.positionals.length < required) {
    const missing = positionals[parsed.positionals.length]!;
    return usage(`Missing <${missing.name}>`);
  }
  if (parsed.positionals.length > positionals.length) {
    return usage(`Unexpected argument '${parsed.positionals[positionals.length]}'`);
  }
  return ok(parsed);
}

/** A string flag's value, or undefined when it was not given. */
export function text(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

/** A comma-separated list flag (`--models a,b`), trimmed, without empty entries. */
export function list(values: Values, name: string): string[] | undefined {
  const value = text(values, name);
  if (value === undefined) return undefined;
  return value
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
}
