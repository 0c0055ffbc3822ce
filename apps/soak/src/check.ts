/** One invariant's verdict, with what breaks it and the SQL that shows it. */
export interface Check {
  name: string;
  pass: boolean;
  /** How many rows, tasks or answers were checked. */
  checked: number;
  /** The first violations, one line each (at most MAX_DETAILS). */
  violations: string[];
  /** All violations, however many lines `violations` shows. */
  violationCount: number;
  /** A query that lists the violations in the run's schema (search_path set to it). */
  sql?: string;
}

const MAX_DETAILS = 20;

/** Builds a check from its violation lines. */
export function verdict(name: string, checked: number, violations: string[], sql?: string): Check {
  return {
    name,
    pass: violations.length === 0,
    checked,
    violations: violations.slice(0, MAX_DETAILS),
    violationCount: violations.length,
    ...(sql ? { sql: sql.replace(/\s+/g, " ").trim() } : {}),
  };
}

/** Quota as USD for people: 1 USD = 500,000 quota. */
export const usd = (quota: bigint): string => `$${(Number(quota) / 500_000).toFixed(4)}`;
