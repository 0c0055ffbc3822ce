/** A sliding window: at most `limit` requests in any `windowMs` milliseconds. */
export interface WindowPolicy {
  limit: number;
  windowMs: number;
}

/**
 * The server's rate limits (spec section 8, groups 1-6). A null window is switched off.
 * Clients never hard-code these; the server reads them from its environment.
 */
export interface LimitPolicy {
  /** IP window shared by /v1/models, /v1/models/{model} and /v1/model-options. */
  models: WindowPolicy | null;
  /** IP window of /v1/balance. */
  balance: WindowPolicy | null;
  /** How long exceeding the models or balance window blocks the IP on both; 0 = never. */
  blockMs: number;
  /** IP tier of balance, key budget, history, summary, key log and quote. */
  critical: WindowPolicy | null;
  /** IP tier of the legacy billing calls. */
  general: WindowPolicy | null;
  /** Per key + model + user window of token counting, message-style lists and audio reads. */
  model: WindowPolicy | null;
}

/** The window of a key's own `rpm_limit`: requests per minute. */
export const KEY_RPM_WINDOW_MS = 60_000;

/**
 * The environment variables and their defaults. The IP windows of the models and
 * balance groups are on out of the box, with limits no interactive client reaches;
 * the general and critical tiers are off until an operator enables them ("where
 * enabled", spec 8.3), because their right size depends on the deployment.
 */
export const LIMIT_ENV = {
  models: { name: "RATE_LIMIT_MODELS", fallback: "120/60s" },
  balance: { name: "RATE_LIMIT_BALANCE", fallback: "60/60s" },
  block: { name: "RATE_LIMIT_IP_BLOCK", fallback: "60s" },
  critical: { name: "RATE_LIMIT_CRITICAL", fallback: "off" },
  general: { name: "RATE_LIMIT_GENERAL", fallback: "off" },
  model: { name: "RATE_LIMIT_MODEL", fallback: "300/60s" },
} as const;

/** A sliding log keeps one entry per admitted request, so the limit bounds its memory. */
export const MAX_LIMIT = 1_000_000;
export const MAX_WINDOW_MS = 24 * 60 * 60 * 1000;

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
const DURATION = /^(\d+)(ms|s|m|h)$/;
const WINDOW = /^(\d+)\/(\d+(?:ms|s|m|h))$/;
const OFF = new Set(["off", "0"]);

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** "500ms", "60s", "20m", "1h" to milliseconds; null when malformed. */
export function parseDuration(text: string): number | null {
  const match = DURATION.exec(text.trim());
  if (!match) return null;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** "<requests>/<duration>" (e.g. "60/60s"), or "off" / "0" for no window. */
export function parseWindow(name: string, text: string): Parsed<WindowPolicy | null> {
  const value = text.trim().toLowerCase().replaceAll(" ", "");
  if (OFF.has(value)) return { ok: true, value: null };
  const match = WINDOW.exec(value);
  const windowMs = match ? parseDuration(match[2]!) : null;
  if (!match || windowMs === null) {
    return {
      ok: false,
      error: `${name} must be "<requests>/<duration>" such as "60/60s" or "20/20m" (units ms, s, m, h), or "off"; got "${text}"`,
    };
  }
  const limit = Number(match[1]);
  if (limit < 1 || limit > MAX_LIMIT) {
    return {
      ok: false,
      error: `${name}: the request count must be 1 to ${MAX_LIMIT}; got ${limit}`,
    };
  }
  if (windowMs < 1 || windowMs > MAX_WINDOW_MS) {
    return { ok: false, error: `${name}: the duration must be 1ms to 24h; got "${match[2]}"` };
  }
  return { ok: true, value: { limit, windowMs } };
}

function parseBlock(name: string, text: string): Parsed<number> {
  const value = text.trim().toLowerCase();
  if (OFF.has(value)) return { ok: true, value: 0 };
  const ms = parseDuration(value);
  if (ms === null || ms > MAX_WINDOW_MS) {
    return {
      ok: false,
      error: `${name} must be a duration up to 24h such as "60s" or "5m", or "off"; got "${text}"`,
    };
  }
  return { ok: true, value: ms };
}

/**
 * Reads the limits from the environment; unset or empty variables take their defaults.
 * Answers the first problem in words an operator can act on, rather than throwing.
 */
export function parseLimitPolicy(env: Record<string, string | undefined>): Parsed<LimitPolicy> {
  const read = (entry: { name: string; fallback: string }) => {
    const raw = env[entry.name];
    return raw === undefined || raw.trim() === "" ? entry.fallback : raw;
  };
  const windows: Partial<Record<keyof LimitPolicy, WindowPolicy | null>> = {};
  for (const group of ["models", "balance", "critical", "general", "model"] as const) {
    const entry = LIMIT_ENV[group];
    const parsed = parseWindow(entry.name, read(entry));
    if (!parsed.ok) return parsed;
    windows[group] = parsed.value;
  }
  const block = parseBlock(LIMIT_ENV.block.name, read(LIMIT_ENV.block));
  if (!block.ok) return block;
  return {
    ok: true,
    value: {
      models: windows.models ?? null,
      balance: windows.balance ?? null,
      blockMs: block.value,
      critical: windows.critical ?? null,
      general: windows.general ?? null,
      model: windows.model ?? null,
    },
  };
}

/** "60/60s" style, for logs and messages. */
export function describeWindow(window: WindowPolicy): string {
  const seconds = window.windowMs / 1000;
  return `${window.limit} requests per ${Number.isInteger(seconds) ? `${seconds} s` : `${window.windowMs} ms`}`;
}
