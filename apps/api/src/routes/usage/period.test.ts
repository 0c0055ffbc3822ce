// Proves every bound, default and malformed value of the spend-history query (spec 4.10)
// is taken or refused with a message naming the parameter.
import { describe, expect, test } from "bun:test";
import { ApiError } from "../../errors.ts";
import { parseHistoryQuery, parsePeriod } from "./period.ts";

const NOW = 1_800_000_000;
const DAY = 86_400;

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return `${error.code}: ${error.message}`;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("parsePeriod", () => {
  test("defaults to the last 30 days, ending with the current second", () => {
    expect(parsePeriod({}, NOW)).toEqual({ start: NOW + 1 - 30 * DAY, end: NOW + 1 });
  });

  test("a start alone runs to now; an end alone starts 30 days before it", () => {
    expect(parsePeriod({ start_timestamp: String(NOW - DAY) }, NOW)).toEqual({
      start: NOW - DAY,
      end: NOW + 1,
    });
    expect(parsePeriod({ end_timestamp: String(NOW - 5 * DAY) }, NOW)).toEqual({
      start: NOW - 35 * DAY,
      end: NOW - 5 * DAY,
    });
  });

  test("exactly 90 days and exactly one day ahead are allowed; one second more is not", () => {
    const end = NOW + DAY;
    expect(
      parsePeriod({ start_timestamp: String(end - 90 * DAY), end_timestamp: String(end) }, NOW),
    ).toEqual({ start: end - 90 * DAY, end });
    expect(
      refusal(() =>
        parsePeriod({ start_timestamp: String(NOW - DAY), end_timestamp: String(end + 1) }, NOW),
      ),
    ).toBe(
      "invalid_request: Invalid query parameter 'end_timestamp': must be at most one day in the future",
    );
    expect(
      refusal(() =>
        parsePeriod(
          { start_timestamp: String(end - 90 * DAY - 1), end_timestamp: String(end) },
          NOW,
        ),
      ),
    ).toContain("'start_timestamp': the period may span at most 90 days");
  });

  test("a start at or after the end is refused", () => {
    const at = String(NOW - DAY);
    expect(refusal(() => parsePeriod({ start_timestamp: at, end_timestamp: at }, NOW))).toContain(
      "'start_timestamp': must be before end_timestamp",
    );
  });

  test.each([
    ["start_timestamp", "yesterday"],
    ["start_timestamp", "1.5"],
    ["start_timestamp", ""],
    ["start_timestamp", "-1"],
    ["end_timestamp", "1e9"],
    ["end_timestamp", "0x10"],
    ["end_timestamp", "99999999999999999999999"],
  ])("%s=%p is a 400 naming it", (name, value) => {
    expect(refusal(() => parsePeriod({ [name]: value }, NOW))).toMatch(
      new RegExp(`^invalid_request: Invalid query parameter '${name}'`),
    );
  });
});

describe("parseHistoryQuery", () => {
  test("limit defaults to 50 and runs 1 to 100", () => {
    expect(parseHistoryQuery({}, NOW).limit).toBe(50);
    expect(parseHistoryQuery({ limit: "1" }, NOW).limit).toBe(1);
    expect(parseHistoryQuery({ limit: "100" }, NOW).limit).toBe(100);
    for (const limit of ["0", "101", "-5", "ten", "2.5"])
      expect(refusal(() => parseHistoryQuery({ limit }, NOW))).toContain("'limit'");
  });

  test("format is csv or json", () => {
    expect(parseHistoryQuery({ format: "csv" }, NOW).limit).toBe(50);
    expect(parseHistoryQuery({ format: "json" }, NOW).limit).toBe(50);
    for (const format of ["xml", "CSV", ""])
      expect(refusal(() => parseHistoryQuery({ format }, NOW))).toContain("'format'");
  });

  test("cursor is a positive integer", () => {
    expect(parseHistoryQuery({ cursor: "42" }, NOW).cursor).toBe(42n);
    expect(parseHistoryQuery({}, NOW).cursor).toBeUndefined();
    for (const cursor of ["0", "-1", "abc", "9223372036854775808", "1;drop"])
      expect(refusal(() => parseHistoryQuery({ cursor }, NOW))).toContain("'cursor'");
  });
});
