import { createHmac, timingSafeEqual } from "node:crypto";
import { assertKey, isValidKey } from "./keys.ts";

/** Links live at most 13 days: the longest a result is promised to stay downloadable. */
export const MAX_LINK_TTL_SECONDS = 13 * 24 * 3600;
/** How far a link's expiry may exceed now + the maximum, for clocks of signers running ahead. */
export const LINK_CLOCK_SKEW_SECONDS = 60;
/** The route files are served under; `signLink` answers a path below it. */
export const LINK_PATH_PREFIX = "/v1/files/";
/** HMAC-SHA256 keys shorter than this are refused as a configuration mistake. */
export const MIN_LINK_SECRET_BYTES = 16;

export type LinkSecret = Uint8Array | string;
export type LinkCheck =
  | { ok: true }
  | { ok: false; code: "expired" | "bad_signature" | "malformed" };

/** Canonical expiries only: no sign, no leading zero, at most 12 digits (year 33658). */
const EXPIRES = /^[1-9][0-9]{0,11}$/;
/** base64url of 32 bytes without padding. */
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

/**
 * `RESULT_LINK_TTL_SECONDS`: how long a signed link stays valid. Unset or blank gives
 * the maximum, 13 days; anything but a whole number from 1 to the maximum throws.
 */
export function linkTtlFromEnv(value: string | undefined): number {
  const text = value?.trim();
  if (text === undefined || text === "") return MAX_LINK_TTL_SECONDS;
  const seconds = /^[0-9]{1,9}$/.test(text) ? Number(text) : Number.NaN;
  if (!(seconds >= 1 && seconds <= MAX_LINK_TTL_SECONDS)) {
    throw new Error(
      `RESULT_LINK_TTL_SECONDS must be a whole number of seconds from 1 to ${MAX_LINK_TTL_SECONDS} (13 days); got "${value}"`,
    );
  }
  return seconds;
}

function secretBytes(secret: LinkSecret): Uint8Array {
  const bytes = typeof secret === "string" ? new TextEncoder().encode(secret) : secret;
  if (bytes.byteLength < MIN_LINK_SECRET_BYTES) {
    throw new RangeError(`link secret must be at least ${MIN_LINK_SECRET_BYTES} bytes`);
  }
  return bytes;
}

function signatureOf(secret: Uint8Array, key: string, expiresAtSeconds: number): string {
  return createHmac("sha256", secret).update(`${key}\n${expiresAtSeconds}`).digest("base64url");
}

/**
 * The path and query of a bearer link to `key` valid until `expiresAtSeconds` (Unix
 * seconds): `/v1/files/<key>?expires=<unix>&signature=<base64url HMAC-SHA256>`, where
 * the HMAC covers `key + "\n" + expires`. Key characters need no URL encoding.
 */
export function signLink(secret: LinkSecret, key: string, expiresAtSeconds: number): string {
  assertKey(key);
  if (!Number.isSafeInteger(expiresAtSeconds) || !EXPIRES.test(String(expiresAtSeconds))) {
    throw new RangeError(`link expiry must be a positive whole Unix time; got ${expiresAtSeconds}`);
  }
  const signature = signatureOf(secretBytes(secret), key, expiresAtSeconds);
  return `${LINK_PATH_PREFIX}${key}?expires=${expiresAtSeconds}&signature=${signature}`;
}

const OK: LinkCheck = { ok: true };
const MALFORMED: LinkCheck = { ok: false, code: "malformed" };

/**
 * Checks a link's parts as they arrive from the URL. The signature is checked before
 * the expiry, so "expired" is only ever said of a link we really signed; an expiry
 * further ahead than any link we issue is malformed whatever its signature.
 */
export function verifyLink(
  secret: LinkSecret,
  key: string,
  expires: string | null,
  signature: string | null,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): LinkCheck {
  const hmacKey = secretBytes(secret);
  if (!isValidKey(key) || expires === null || signature === null) return MALFORMED;
  if (!EXPIRES.test(expires) || !SIGNATURE.test(signature)) return MALFORMED;
  const expiresAtSeconds = Number(expires);
  if (expiresAtSeconds > nowSeconds + MAX_LINK_TTL_SECONDS + LINK_CLOCK_SKEW_SECONDS) {
    return MALFORMED;
  }
  // Comparing the canonical text (both 43 ASCII bytes) rather than decoded bytes also
  // refuses the non-canonical spellings base64url allows in the last character.
  const expected = Buffer.from(signatureOf(hmacKey, key, expiresAtSeconds));
  if (!timingSafeEqual(expected, Buffer.from(signature))) {
    return { ok: false, code: "bad_signature" };
  }
  if (expiresAtSeconds <= nowSeconds) return { ok: false, code: "expired" };
  return OK;
}
