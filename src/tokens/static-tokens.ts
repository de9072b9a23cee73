import type { Authenticator, AuthResult } from './authenticator.js';
import { hashSecret, sameDigest } from './secrets.js';

/**
 * Tokens from FOODLOOKUP_TOKENS: accepted from anywhere, without quotas. Compared by their
 * SHA-256 digests in constant time, so neither length nor content leaks through timing.
 */
export class StaticTokens implements Authenticator {
  private readonly digests: readonly Buffer[];

  constructor(tokens: readonly string[]) {
    this.digests = tokens.map(hashSecret);
  }

  /** The token's id in logs and metrics: never the token itself. */
  static idOf(index: number): string {
    return `env:${index}`;
  }

  match(secret: string): number {
    return this.matchDigest(hashSecret(secret));
  }

  /** Index of the token whose digest this is, or -1; every digest is compared (no early exit). */
  matchDigest(candidate: Uint8Array): number {
    let found = -1;
    this.digests.forEach((d, i) => {
      if (sameDigest(d, candidate) && found === -1) found = i;
    });
    return found;
  }

  authenticate(secret: string | undefined): Promise<AuthResult> {
    if (secret === undefined) return Promise.resolve({ ok: false, reason: 'unauthorized' });
    const index = this.match(secret);
    return Promise.resolve(index === -1 ? { ok: false, reason: 'unauthorized' } : { ok: true, tokenId: StaticTokens.idOf(index) });
  }
}
