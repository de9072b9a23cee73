import type { Config } from '../config.js';
import type { CatalogStore } from '../store/catalog-store.js';
import { SqliteCatalogStore } from '../store/sqlite/store.js';
import { SqliteTokenStore } from '../store/sqlite/token-store.js';
import { databaseAccess } from '../store/sqlite/file-access.js';
import { MemoryCounters, type QuotaCounters } from './counters.js';
import { StaticTokens } from './static-tokens.js';
import { TokenAuthenticator, type TokenAuthenticatorOptions } from './token-authenticator.js';
import type { TokenStore } from './token-store.js';

export interface OpenTokenStoreOptions {
  /** Create the database file when missing (`tokens create`); otherwise a missing file is an error. */
  readonly create?: boolean;
  /** The server's catalogue store: an in-memory SQLite catalogue is shared, since a second connection could not see it. */
  readonly catalogue?: CatalogStore;
  /** How long a write may wait for another writer (see SqliteTokenStoreOptions). */
  readonly busyTimeoutMs?: number;
  /** Connections of a PostgreSQL token store's own pool (2 for the CLI). */
  readonly poolSize?: number;
}

/**
 * The token store of the configured database: tokens live beside the catalogue (contract C5), so
 * with PostgreSQL every replica on the database shares them.
 */
export async function openTokenStore(config: Config, options: OpenTokenStoreOptions = {}): Promise<TokenStore> {
  if (config.databaseUrl) {
    // Loaded only then, like the Redis client: a SQLite deployment never loads pg.
    const { PostgresTokenStore } = await import('../store/postgres/token-store.js');
    return PostgresTokenStore.open(config.databaseUrl, { max: options.poolSize ?? 2 });
  }
  if (config.dbPath === ':memory:' && options.catalogue instanceof SqliteCatalogStore) {
    return new SqliteTokenStore(options.catalogue.connection);
  }
  return SqliteTokenStore.open(config.dbPath, {
    create: options.create ?? false,
    readonly: databaseAccess(config.dbPath).readOnlyBecause !== undefined,
    ...(options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}),
  });
}

/**
 * Counters in Redis when REDIS_URL is set (shared by replicas), else in this process. The Redis
 * client is loaded only then: it is ~0.15 s of a server's start.
 */
export async function openCounters(config: Config): Promise<QuotaCounters> {
  if (!config.redisUrl) return new MemoryCounters();
  const { RedisCounters } = await import('./redis-counters.js');
  return new RedisCounters({ url: config.redisUrl });
}

/**
 * The server's authenticator: FOODLOOKUP_TOKENS, stored tokens and quotas. Close it before the
 * catalogue store (it writes pending last-use times, possibly through a shared connection).
 */
export async function openAuthenticator(
  config: Config,
  catalogue: CatalogStore,
  options: Partial<Omit<TokenAuthenticatorOptions, 'staticTokens' | 'store' | 'counters'>> = {},
): Promise<TokenAuthenticator> {
  // Its own connection with a short busy timeout: a long import holding the write lock must
  // not stall request handling (better-sqlite3 waits synchronously); a last-use write that
  // meets the lock is retried at the next flush.
  const store = await openTokenStore(config, { catalogue, busyTimeoutMs: 100, poolSize: 4 });
  const counters = await openCounters(config);
  return new TokenAuthenticator({ ...options, staticTokens: new StaticTokens(config.tokens), store, counters });
}
