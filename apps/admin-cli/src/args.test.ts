// Proves the command line splits into words, flags and arguments as help describes:
// global flags anywhere, a flag's value never taken for a command word, strict flags.
import { describe, expect, test } from "bun:test";
import { type FlagSpecs, parseFlags, splitWords } from "./args.ts";

describe("splitWords", () => {
  test("the first two words are the command; global flags may come before them", () => {
    expect(splitWords(["users", "show", "7", "--json"])).toEqual({
      words: ["users", "show"],
      rest: ["7", "--json"],
    });
    expect(splitWords(["--url", "http://x", "--json", "keys", "list"])).toEqual({
      words: ["keys", "list"],
      rest: ["--url", "http://x", "--json"],
    });
    expect(splitWords(["--token-file=/t", "endpoints", "close", "balance"])).toEqual({
      words: ["endpoints", "close"],
      rest: ["--token-file=/t", "balance"],
    });
  });

  test("after -- nothing is a command word", () => {
    expect(splitWords(["--", "users"])).toEqual({ words: [], rest: ["--", "users"] });
  });
});

describe("parseFlags", () => {
  const flags: FlagSpecs = {
    name: { type: "string", value: "NAME", required: true, description: "" },
    models: { type: "string", description: "" },
  };
  const positionals = [{ name: "user-id" }, { name: "extra", optional: true }];

  test("takes the command's flags and the global ones", () => {
    const parsed = parseFlags(["7", "--name", "x", "--json"], flags, positionals);
    expect(parsed).toEqual({
      ok: true,
      value: { values: { name: "x", json: true }, positionals: ["7"] },
    });
  });

  test("unknown flags, missing values, required flags and arguments are usage errors", () => {
    const failure = (args: string[]) => {
      const parsed = parseFlags(args, flags, positionals);
      return parsed.ok ? undefined : parsed.failure;
    };
    expect(failure(["7", "--name", "x", "--nope"])).toEqual({
      code: "usage",
      message: "Unknown option '--nope'",
    });
    expect(failure(["7", "--name"])?.message).toBe("Option '--name <value>' argument missing");
    expect(failure(["7"])?.message).toBe("Missing --name NAME");
    expect(failure(["7", "--name", ""])?.message).toBe("Missing --name NAME");
    expect(failure(["--name", "x"])?.message).toBe("Missing <user-id>");
    expect(failure(["7", "8", "9", "--name", "x"])?.message).toBe("Unexpected argument '9'");
  });

  test("--help is honoured before anything else is checked", () => {
    expect(parseFlags(["--help"], flags, positionals).ok).toBe(true);
  });
});
