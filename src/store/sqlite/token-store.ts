import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { isBusyError } from './busy.js';
import { checkReadable, enterWal } from './import-journal.js';
import { isQuotaWindow } from '../../tokens/quota.js';
import type { NewToken, TokenCredential, TokenInfo, TokenStore } from '../../tokens/token-store.js';

/**
 * Only the SHA-256 of each secret is kept (`secret_hash`, unique: the lookup index). Revocation
 * is a time, not a flag, so `list` can say when. `ips` is a JSON array of canonical CIDR blocks.
 */
const DDL = `
CREATE TABLE IF NOT EXISTS access_tokens (
  id TEXT PRIMARY KEY,
  secret_hash BLOB NOT NULL UNIQUE,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  ips TEXT NOT NULL DEFAULT '[]',
  quota_limit INTEGER,
  quota_window TEXT CHECK (quota_window IN ('minute', 'hour', 'day')),
  revoked_at INTEGER,
  last_used_at INTEGER,
  CHECK ((quota_limit IS NULL) = (quota_window IS NULL))
) WITHOUT ROWID;
`;

/** The public columns: the hash is selected only by findByHash, so it never reaches a listing. */
const INFO_COLUMNS = 'id, name, created_at, ips, quota_limit, quota_window, revoked_at, last_used_at';

export interface TokenRow {
  id: string;
  name: string;
  created_at: number;
  ips: string;
  quota_limit: number | null;
  quota_window: string | null;
  revoked_at: number | null;
  last_used_at: number | null;
}

/** Builds the domain view of a token from its row. */
export function tokenRowToInfo(row: TokenRow): TokenInfo {
  const ips = JSON.parse(row.ips) as unknown;
  return {
    id: row.id,
    name: row.name,
    createdAt: row.created_at,
    ips: Array.isArray(ips) ? ips.filter((ip): ip is string => typeof ip === 'string') : [],
    ...(row.quota_limit !== null && row.quota_window !== null && isQuotaWindow(row.quota_window)
      ? { quota: { limit: row.quota_limit, window: row.quota_window } }
      : {}),
    ...(row.revoked_at !== null ? { revokedAt: row.revoked_at } : {}),
    ...(row.last_used_at !== null ? { lastUsedAt: row.last_used_at } : {}),
  };
}

export interface SqliteTokenStoreOptions {
  /** Create the file (and its folder) when missing; otherwise a missing file is an error. */
  readonly create?: boolean;
  /**
   * How long a write waits for another writer (an import) before failing. The server keeps this
   * short: better-sqlite3 waits synchronously, and a last-use write can simply be retried later.
   */
  readonly busyTimeoutMs?: number;
  /** Open a read-only file or folder: tokens are looked up and listed, last use is not recorded. */
  readonly readonly?: boolean;
}

export class SqliteTokenStore implements TokenStore {
  private readonly insertStatement: Statement<[string, Buffer, string, number, string, number | null, string | null]>;
  private readonly byHash: Statement<[Buffer], TokenRow & { secret_hash: Buffer }>;
  private readonly byId: Statement<[string], TokenRow>;
  private readonly all: Statement<[], TokenRow>;
  private readonly countStatement: Statement<[], { n: number }>;
  private readonly revokeStatement: Statement<[number, string]>;
  private readonly touch: Statement<[number, string]>;

  /**
   * Over a connection: one opened by `open`, which this store then closes, or a connection it
   * borrows (an in-memory catalogue, which a second connection could not see).
   */
  constructor(private readonly db: Db, private readonly ownsConnection = false) {
    // A read-only database without the table has no stored tokens: an empty table of this
    // connection's own stands in for it, so every statement reads the same way.
    const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'access_tokens'").get() !== undefined;
    if (!db.readonly) db.exec(DDL);
    else if (!hasTable) db.exec(DDL.replace('CREATE TABLE', 'CREATE TEMP TABLE'));
    this.insertStatement = db.prepare(
      'INSERT INTO access_tokens (id, secret_hash, name, created_at, ips, quota_limit, quota_window) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.byHash = db.prepare(`SELECT ${INFO_COLUMNS}, secret_hash FROM access_tokens WHERE secret_hash = ?`);
    this.byId = db.prepare(`SELECT ${INFO_COLUMNS} FROM access_tokens WHERE id = ?`);
    this.all = db.prepare(`SELECT ${INFO_COLUMNS} FROM access_tokens ORDER BY created_at, id`);
    this.countStatement = db.prepare('SELECT count(*) AS n FROM access_tokens');
    this.revokeStatement = db.prepare('UPDATE access_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    // max(): replicas flush independently, and an older time must not overwrite a newer one.
    this.touch = db.prepare('UPDATE access_tokens SET last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?');
  }

  /** Opens its own connection to the database file (the CLI, or a server without a SQLite catalogue). */
  static open(path: string, options: SqliteTokenStoreOptions = {}): SqliteTokenStore {
    if (options.create && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const readonly = options.readonly === true && !options.create;
    const db = new Database(path, { readonly, fileMustExist: !options.create });
    try {
      if (readonly) checkReadable(db, path);
      else enterWal(db, path);
      // Creating the table may wait as long as the catalogue's own schema check does.
      db.pragma('busy_timeout = 5000');
      const store = new SqliteTokenStore(db, true);
      db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
      return store;
    } catch (error) {
      db.close();
      throw error;
    }
  }

  insert(token: NewToken): Promise<void> {
    this.insertStatement.run(
      token.id, Buffer.from(token.secretHash), token.name, token.createdAt, JSON.stringify(token.ips),
      token.quota?.limit ?? null, token.quota?.window ?? null,
    );
    return Promise.resolve();
  }

  findByHash(secretHash: Uint8Array): Promise<TokenCredential | undefined> {
    const row = this.byHash.get(Buffer.from(secretHash));
    return Promise.resolve(row ? { ...tokenRowToInfo(row), secretHash: row.secret_hash } : undefined);
  }

  get(id: string): Promise<TokenInfo | undefined> {
    const row = this.byId.get(id.toLowerCase());
    return Promise.resolve(row ? tokenRowToInfo(row) : undefined);
  }

  list(): Promise<readonly TokenInfo[]> {
    return Promise.resolve(this.all.all().map(tokenRowToInfo));
  }

  count(): Promise<number> {
    return Promise.resolve(this.countStatement.get()?.n ?? 0);
  }

  revoke(id: string, at: number): Promise<TokenInfo | undefined> {
    const key = id.toLowerCase();
    this.revokeStatement.run(at, key);
    return this.get(key);
  }

  recordUse(uses: ReadonlyMap<string, number>): Promise<boolean> {
    // A read-only database keeps no last use (said at startup): the times are dropped.
    if (uses.size === 0 || this.db.readonly) return Promise.resolve(true);
    try {
      this.db.transaction(() => {
        for (const [id, at] of uses) this.touch.run(at, id);
      })();
    } catch (error) {
      if (isBusyError(error)) return Promise.resolve(false);
      throw error;
    }
    return Promise.resolve(true);
  }

  close(): Promise<void> {
    if (this.ownsConnection && this.db.open) this.db.close();
    return Promise.resolve();
  }
}
