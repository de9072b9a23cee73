import type pg from 'pg';
import { tokenRowToInfo, type TokenRow } from '../sqlite/token-store.js';
import type { NewToken, TokenCredential, TokenInfo, TokenStore } from '../../tokens/token-store.js';
import { checkConnection, endPool, isUnavailable, openPool, unavailableOr } from './connection.js';

/**
 * The token table in PostgreSQL: the same columns as SQLite's (store/sqlite/token-store.ts), in
 * the database's default schema beside foodlookup_meta, so that every replica on the database
 * sees one set of tokens. Only the SHA-256 of each secret is kept (`secret_hash`, unique: the
 * lookup index); revocation is a time; `ips` a JSON array of canonical CIDR blocks; times are ms
 * since the epoch. Idempotent: pg-a's migration runner runs it, and so does `open` below for a
 * database no server has migrated yet.
 */
export const TOKEN_DDL = `
CREATE TABLE IF NOT EXISTS access_tokens (
  id text COLLATE "C" PRIMARY KEY,
  secret_hash bytea NOT NULL UNIQUE,
  name text NOT NULL,
  created_at bigint NOT NULL,
  ips text NOT NULL DEFAULT '[]',
  quota_limit integer,
  quota_window text CHECK (quota_window IN ('minute', 'hour', 'day')),
  revoked_at bigint,
  last_used_at bigint,
  CHECK ((quota_limit IS NULL) = (quota_window IS NULL))
)`;

/** pg_advisory_xact_lock key of the token table's creation (two `tokens create` at once). */
const TOKEN_DDL_LOCK = 0x666f6f6403;

/** The public columns; bigint times as float8 (exact for ms times), which pg returns as numbers. */
const INFO_COLUMNS =
  'id, name, created_at::float8 AS created_at, ips, quota_limit, quota_window, revoked_at::float8 AS revoked_at, last_used_at::float8 AS last_used_at';

/** lock_not_available: the last-use write met a lock held longer than it may wait. */
const LOCK_NOT_AVAILABLE = '55P03';

export class PostgresTokenStore implements TokenStore {
  /**
   * Over a pool: one opened by `open`, which this store then ends, or one it borrows (the
   * server's catalogue pool).
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly ownsPool = false,
  ) {}

  /** Its own pool on the URL (the CLI); creates the token table when missing. Errors name the host, never the password. */
  static async open(url: string, options: { readonly max?: number } = {}): Promise<PostgresTokenStore> {
    const pool = openPool(url, { max: options.max ?? 2, applicationName: 'foodlookup tokens' });
    const store = new PostgresTokenStore(pool, url, true);
    try {
      await checkConnection(pool, url);
      await store.createTable();
      return store;
    } catch (error) {
      await endPool(pool);
      throw unavailableOr(error, url);
    }
  }

  /** Creates the table when missing, under a lock so that concurrent creators do not collide. */
  async createTable(): Promise<void> {
    await this.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [TOKEN_DDL_LOCK]);
      await client.query(TOKEN_DDL);
    });
  }

  async insert(token: NewToken): Promise<void> {
    await this.query(
      'INSERT INTO access_tokens (id, secret_hash, name, created_at, ips, quota_limit, quota_window) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [token.id, Buffer.from(token.secretHash), token.name, token.createdAt, JSON.stringify(token.ips), token.quota?.limit ?? null, token.quota?.window ?? null],
    );
  }

  async findByHash(secretHash: Uint8Array): Promise<TokenCredential | undefined> {
    const rows = await this.query<TokenRow & { secret_hash: Buffer }>(
      `SELECT ${INFO_COLUMNS}, secret_hash FROM access_tokens WHERE secret_hash = $1`,
      [Buffer.from(secretHash)],
    );
    const row = rows[0];
    return row ? { ...tokenRowToInfo(row), secretHash: row.secret_hash } : undefined;
  }

  async get(id: string): Promise<TokenInfo | undefined> {
    const row = (await this.query<TokenRow>(`SELECT ${INFO_COLUMNS} FROM access_tokens WHERE id = $1`, [id.toLowerCase()]))[0];
    return row ? tokenRowToInfo(row) : undefined;
  }

  async list(): Promise<readonly TokenInfo[]> {
    return (await this.query<TokenRow>(`SELECT ${INFO_COLUMNS} FROM access_tokens ORDER BY created_at, id`)).map(tokenRowToInfo);
  }

  async count(): Promise<number> {
    return (await this.query<{ n: number }>('SELECT count(*)::int AS n FROM access_tokens'))[0]?.n ?? 0;
  }

  async revoke(id: string, at: number): Promise<TokenInfo | undefined> {
    const key = id.toLowerCase();
    await this.query('UPDATE access_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, key]);
    return this.get(key);
  }

  async recordUse(uses: ReadonlyMap<string, number>): Promise<boolean> {
    if (uses.size === 0) return true;
    try {
      await this.transaction(async (client) => {
        // A last-use time is not worth waiting for: a row held by another writer is tried at the next flush.
        await client.query("SET LOCAL lock_timeout = '200ms'");
        // greatest(): replicas flush independently, and an older time must not overwrite a newer one.
        await client.query(
          `UPDATE access_tokens t SET last_used_at = greatest(coalesce(t.last_used_at, 0), u.at)
           FROM unnest($1::text[], $2::bigint[]) AS u(id, at) WHERE t.id = u.id`,
          [[...uses.keys()], [...uses.values()]],
        );
      });
    } catch (error) {
      // PostgreSQL away or the rows locked: keep the times for the next flush.
      if (isUnavailable(error) || (error as { code?: unknown }).code === LOCK_NOT_AVAILABLE) return false;
      throw unavailableOr(error, this.url);
    }
    return true;
  }

  async close(): Promise<void> {
    if (this.ownsPool) await endPool(this.pool);
  }

  private async query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    try {
      return (await this.pool.query<R>(sql, params)).rows;
    } catch (error) {
      // Away or not answering → StoreUnavailable (503 for a request); other errors unchanged.
      throw unavailableOr(error, this.url);
    }
  }

  private async transaction(run: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw unavailableOr(error, this.url);
    }
    try {
      await client.query('BEGIN');
      await run(client);
      await client.query('COMMIT');
    } catch (error) {
      const broken = isUnavailable(error);
      if (!broken) await client.query('ROLLBACK').catch(() => undefined);
      // A connection that broke goes, rather than back to the pool.
      client.release(broken ? (error as Error) : undefined);
      throw error;
    }
    client.release();
  }
}
