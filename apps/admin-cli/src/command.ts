import type { FlagSpecs, Parsed, PositionalSpec } from "./args.ts";
import type { AdminClient } from "./client.ts";
import type { Result } from "./failure.ts";

/** What a command reaches the world through: the gateway, and the output streams. */
export interface Context {
  client: AdminClient;
  /** `--json`: print the API's answer as it came instead of a table. */
  json: boolean;
  out(text: string): void;
  /** Notes for the person at the terminal; stdout stays clean for pipes. */
  note(text: string): void;
}

/** One `<noun> <verb>` of the grammar, with what its help shows. */
export interface Command {
  noun: string;
  verb: string;
  summary: string;
  positionals: PositionalSpec[];
  flags: FlagSpecs;
  /** Lines of examples and remarks under the flags in the command's help. */
  notes?: string[];
  run(context: Context, input: Parsed): Promise<Result<void>>;
}

/** Prints a value as JSON, two-space indented, the way `--json` shows every answer. */
export function printJson(context: Context, value: unknown): void {
  context.out(JSON.stringify(value, null, 2));
}
