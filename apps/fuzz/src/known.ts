import type { FuzzCase } from "./cases.ts";
import type { Violation } from "./checks.ts";
import type { Outcome } from "./send.ts";

/**
 * Answers the api cannot shape because they never reach it: each is listed with why, is
 * printed in the report as known, and does not fail the run. Nothing the api's own code
 * answers belongs here.
 */
interface KnownIssue {
  name: string;
  why: string;
  matches(fuzzCase: FuzzCase, outcome: Outcome, violation: Violation): boolean;
}

export const KNOWN_ISSUES: KnownIssue[] = [
  {
    name: "bun-431",
    why: "Bun's HTTP server answers 431 with an empty body to a request over its header limits (about 100 headers or 16 KiB), before any handler, and offers no setting to shape it",
    matches: (_case, outcome, violation) =>
      violation.kind === "shape" && outcome.status === 431 && outcome.body === "",
  },
];

/** The known issue a violation is, if any. */
export function knownIssueOf(
  fuzzCase: FuzzCase,
  outcome: Outcome,
  violation: Violation,
): string | null {
  return KNOWN_ISSUES.find((issue) => issue.matches(fuzzCase, outcome, violation))?.name ?? null;
}
