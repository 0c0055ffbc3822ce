import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

const PREFIX = "sk-";
const BODY_LENGTH = 48;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
// Largest multiple of 62 that fits in a byte; bytes at or above it are redrawn so that
// `byte % 62` stays uniform (256 is not a multiple of 62).
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length);
const SECRET_PATTERN = /^sk-[A-Za-z0-9]{48}$/;
const HASH_LENGTH = 32;
// Hints show 11 characters; anything shorter than this would leave too little hidden.
const MIN_HINTABLE_LENGTH = 20;

/** Draws a fresh API key secret: "sk-" followed by 48 uniformly random alphanumerics. */
export function generateSecret(): string {
  let body = "";
  while (body.length < BODY_LENGTH) {
    for (const byte of randomBytes(64)) {
      if (byte >= UNBIASED_LIMIT) continue;
      body += ALPHABET.charAt(byte % ALPHABET.length);
      if (body.length === BODY_LENGTH) break;
    }
  }
  return PREFIX + body;
}

/** SHA-256 of the secret; secrets are high-entropy, so a plain digest suffices for storage. */
export function hashSecret(secret: string): Buffer {
  return createHash("sha256").update(secret, "utf8").digest();
}

/** A short, non-reversible label for admin listings, e.g. "sk-abcd…wxyz". */
export function secretHint(secret: string): string {
  if (secret.length < MIN_HINTABLE_LENGTH) return "…";
  return `${secret.slice(0, 7)}…${secret.slice(-4)}`;
}

/** Cheap format check so malformed bearer tokens never reach the database. */
export function looksLikeSecret(s: string): boolean {
  return SECRET_PATTERN.test(s);
}

/** Constant-time comparison of a presented secret against a stored digest. */
export function secretMatches(secret: string, storedHash: Uint8Array): boolean {
  // timingSafeEqual throws on unequal lengths; a malformed stored hash simply never matches.
  if (storedHash.length !== HASH_LENGTH) return false;
  return timingSafeEqual(hashSecret(secret), storedHash);
}
