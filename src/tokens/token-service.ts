import { randomUUID } from 'node:crypto';
import { AddressSyntaxError, canonicalCidrList } from './ip-rules.js';
import { parseQuota, QuotaSyntaxError, type Quota } from './quota.js';
import { generateSecret, hashSecret } from './secrets.js';
import type { TokenInfo, TokenStore } from './token-store.js';

/** Input an operator got wrong (bad CIDR, quota or name): the CLI shows it with the command's help. */
export class TokenInputError extends Error {}

export interface TokenRequest {
  readonly name?: string;
  /** Comma-separated addresses or CIDR blocks, IPv4 or IPv6. */
  readonly ips?: string;
  /** `N/minute`, `N/hour` or `N/day`. */
  readonly quota?: string;
}

export interface IssuedToken {
  readonly token: TokenInfo;
  /** The secret: shown to the operator once, never stored, never logged. */
  readonly secret: string;
}

const MAX_NAME_LENGTH = 200;

function validName(name: string | undefined): string {
  const trimmed = (name ?? '').trim();
  if (trimmed.length > MAX_NAME_LENGTH) throw new TokenInputError(`name must be at most ${MAX_NAME_LENGTH} characters`);
  // Names end up in a terminal table: control characters could rewrite what the operator sees.
  if (/\p{Cc}/u.test(trimmed)) throw new TokenInputError('name must not contain control characters');
  return trimmed;
}

/** Issues a token: validates the limits, stores only the hash, returns the secret this once. */
export async function issueToken(store: TokenStore, request: TokenRequest, now: number = Date.now()): Promise<IssuedToken> {
  const name = validName(request.name);
  let ips: string[] = [];
  let quota: Quota | undefined;
  try {
    if (request.ips !== undefined) {
      ips = canonicalCidrList(request.ips);
      if (ips.length === 0) throw new TokenInputError('--ips needs at least one address or CIDR block');
    }
    if (request.quota !== undefined) quota = parseQuota(request.quota);
  } catch (error) {
    if (error instanceof AddressSyntaxError || error instanceof QuotaSyntaxError) throw new TokenInputError(error.message);
    throw error;
  }
  const secret = generateSecret();
  const token: TokenInfo = { id: randomUUID(), name, createdAt: now, ips, ...(quota ? { quota } : {}) };
  await store.insert({ ...token, secretHash: hashSecret(secret) });
  return { token, secret };
}

export type RevokeOutcome =
  | { readonly outcome: 'revoked'; readonly token: TokenInfo }
  | { readonly outcome: 'already-revoked'; readonly token: TokenInfo }
  | { readonly outcome: 'not-found' };

/** Revokes by id; refused everywhere within the cache bound (5 s). Revoking twice is not an error. */
export async function revokeToken(store: TokenStore, id: string, now: number = Date.now()): Promise<RevokeOutcome> {
  const before = await store.get(id.trim());
  if (!before) return { outcome: 'not-found' };
  if (before.revokedAt !== undefined) return { outcome: 'already-revoked', token: before };
  const after = await store.revoke(before.id, now);
  return after ? { outcome: 'revoked', token: after } : { outcome: 'not-found' };
}

/** The name of the token `npm start` creates on a fresh database. */
export const DEVELOPMENT_TOKEN_NAME = 'development';

/** Issues the development token when the store holds none at all; undefined otherwise. */
export async function issueDevelopmentToken(store: TokenStore): Promise<IssuedToken | undefined> {
  if ((await store.count()) > 0) return undefined;
  return issueToken(store, { name: DEVELOPMENT_TOKEN_NAME });
}
