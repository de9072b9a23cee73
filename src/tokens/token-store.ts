import type { Quota } from './quota.js';

/** A stored access token as operators see it: never the secret, never its hash. */
export interface TokenInfo {
  /** Public id (a uuid): shown by `tokens list`, used by `tokens revoke`, in logs and quota keys. */
  readonly id: string;
  readonly name: string;
  /** When it was issued (ms since epoch). */
  readonly createdAt: number;
  /** Canonical CIDR blocks it is accepted from; empty means from anywhere. */
  readonly ips: readonly string[];
  /** Absent when the token has no quota. */
  readonly quota?: Quota;
  /** When it was revoked (ms since epoch); absent while the token is valid. */
  readonly revokedAt?: number;
  /** Last request made with it from an allowed address (recorded in batches, so up to a minute behind). */
  readonly lastUsedAt?: number;
}

/** A token to add: its public fields and the SHA-256 of its secret (the secret never reaches a store). */
export interface NewToken {
  readonly id: string;
  readonly name: string;
  readonly createdAt: number;
  readonly ips: readonly string[];
  readonly quota?: Quota;
  readonly secretHash: Uint8Array;
}

/** A token found by its hash, with the stored hash so the caller can compare it in constant time. */
export interface TokenCredential extends TokenInfo {
  readonly secretHash: Uint8Array;
}

/**
 * Where access tokens live: in the catalogue's database (contract C5). Speaks in tokens, never
 * in SQL, so that a PostgreSQL implementation can sit beside the SQLite one.
 */
export interface TokenStore {
  /** Adds a token; throws when the id or the hash already exists. */
  insert(token: NewToken): Promise<void>;
  /** The token whose secret has this SHA-256 (revoked ones too, so the caller can tell), or undefined. */
  findByHash(secretHash: Uint8Array): Promise<TokenCredential | undefined>;
  /** One token by id (case-insensitive), or undefined. */
  get(id: string): Promise<TokenInfo | undefined>;
  /** Every token, oldest first. */
  list(): Promise<readonly TokenInfo[]>;
  /** Number of stored tokens, revoked ones included. */
  count(): Promise<number>;
  /** Marks the token revoked at `at` unless it already is; the token as it is now, or undefined for no such id. */
  revoke(id: string, at: number): Promise<TokenInfo | undefined>;
  /**
   * Records last-use times (token id → ms), all in one write; a time only ever moves forward.
   * Resolves false, having written nothing, when the database is busy with another writer, so the
   * caller can try again later instead of waiting.
   */
  recordUse(uses: ReadonlyMap<string, number>): Promise<boolean>;
  /** Releases the connection when the store owns it. */
  close(): Promise<void>;
}
