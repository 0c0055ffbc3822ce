// Proves the command line: flags win over FUZZ_* variables, defaults apply, a bad flag is
// a usage error rather than a run with a guessed value.
import { expect, test } from "bun:test";
import { DEFAULT_CASES, parseOptions, UsageError } from "./options.ts";

test("flags, then the environment, then defaults", () => {
  const options = parseOptions(["--seed", "5", "--cases=20"], { FUZZ_SEED: "9", FUZZ_CASES: "3" });
  expect(options).toMatchObject({ seed: 5, cases: 20, only: null, verbose: false });
  expect(parseOptions([], { FUZZ_SEED: "9" })).toMatchObject({ seed: 9, cases: DEFAULT_CASES });
  expect(parseOptions(["--case", "17", "--verbose"], {})).toMatchObject({
    only: 17,
    verbose: true,
  });
});

test("a random seed is chosen (and printed by main) when none is given", () => {
  expect(Number.isInteger(parseOptions([], {}).seed)).toBe(true);
});

test("bad flags are usage errors", () => {
  for (const argv of [
    ["--cases", "0"],
    ["--seed", "-1"],
    ["--seed", "x"],
    ["--nope", "1"],
    ["stray"],
  ])
    expect(() => parseOptions(argv, {})).toThrow(UsageError);
});
