import type { Config } from '../config.js';
import type { CatalogStore } from './catalog-store.js';
import { SqliteCatalogStore } from './sqlite/store.js';
import { PostgresCatalogStore } from './postgres/store.js';
import { Synonyms } from '../search/synonyms.js';

/**
 * The store the configuration names: PostgreSQL when a database URL is configured (config.ts
 * decides which of --database-url, --db, DATABASE_URL wins), else the SQLite file. A PostgreSQL
 * store connects on its first use (warm, an import): errors name the host, never the password.
 */
export function openStore(config: Config, options: { readonly readonly: boolean; readonly cacheMiB?: number }): CatalogStore {
  const synonyms = Synonyms.load(config.synonyms);
  if (config.databaseUrl) return new PostgresCatalogStore(config.databaseUrl, { synonyms });
  return new SqliteCatalogStore(config.dbPath, { ...options, synonyms });
}

/**
 * Before a server forks its workers: a PostgreSQL store's tables are created or upgraded once,
 * and an unreachable server or refused credentials stop it with one line (exit 1) instead of
 * every worker failing in turn.
 */
export async function preparePostgres(databaseUrl: string): Promise<void> {
  const store = new PostgresCatalogStore(databaseUrl, { follow: false, poolSize: 1 });
  try {
    await store.prepare();
  } finally {
    await store.close();
  }
}
