import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Every issued token starts with this, so leaked tokens are easy to recognise (secret scanners). */
export const TOKEN_PREFIX = 'fl_';

/** A new token: the prefix and 32 random bytes (256 bits) in base64url, 46 characters in all. */
export function generateSecret(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * The SHA-256 of a token, which is all that is stored. A fast, unsalted hash is right here
 * (unlike for passwords): issued tokens carry 256 random bits, so no dictionary or brute
 * force over the hash can find them, and the check stays cheap on every request. Tokens
 * from FOODLOOKUP_TOKENS are hashed the same way, so one digest serves both lookups.
 */
export function hashSecret(secret: string): Buffer {
  // One-shot: no Hash object per request.
  return hash('sha256', secret, 'buffer');
}

/** Compares two digests in constant time (equal lengths are guaranteed by SHA-256). */
export function sameDigest(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
