import type { Config } from '../config.js';
import type { CatalogStore } from './catalog-store.js';
import { SqliteCatalogStore } from './sqlite/store.js';
import { Synonyms } from '../search/synonyms.js';

/**
 * The store the configuration names: PostgreSQL when a database URL is configured (config.ts
 * decides which of --database-url, --db, DATABASE_URL wins), else the SQLite file. A PostgreSQL
 * store connects on its first use (warm, an import): errors name the host, never the password.
 * It is loaded only then: the pg driver is ~40 ms of every SQLite process's start otherwise.
 */
export async function openStore(config: Config, options: { readonly readonly: boolean; readonly cacheMiB?: number; readonly mapped?: boolean }): Promise<CatalogStore> {
  const synonyms = Synonyms.load(config.synonyms);
  if (config.databaseUrl) {
    const { PostgresCatalogStore } = await import('./postgres/store.js');
    return new PostgresCatalogStore(config.databaseUrl, { synonyms, ...(config.rowCopyDir !== undefined ? { rowCopyDir: config.rowCopyDir } : {}) });
  }
  return new SqliteCatalogStore(config.dbPath, { ...options, synonyms });
}

/**
 * Before a server forks its workers: a PostgreSQL store's tables are created or upgraded once,
 * and an unreachable server or refused credentials stop it with one line (exit 1) instead of
 * every worker failing in turn.
 */
export async function preparePostgres(databaseUrl: string): Promise<void> {
  const { PostgresCatalogStore } = await import('./postgres/store.js');
  const store = new PostgresCatalogStore(databaseUrl, { follow: false, poolSize: 1 });
  try {
    await store.prepare();
  } finally {
    await store.close();
  }
}
