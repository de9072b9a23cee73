import type { Config } from '../config.js';
import type { CatalogStore } from './catalog-store.js';
import { SqliteCatalogStore } from './sqlite/store.js';
import { Synonyms } from '../search/synonyms.js';

/** The store the configuration names: PostgreSQL when DATABASE_URL is set, else SQLite. */
export function openStore(config: Config, options: { readonly readonly: boolean; readonly cacheMiB?: number }): CatalogStore {
  if (config.databaseUrl) {
    throw new Error('DATABASE_URL is set, but the PostgreSQL store is not built yet: unset it to use the SQLite file');
  }
  return new SqliteCatalogStore(config.dbPath, { ...options, synonyms: Synonyms.load(config.synonyms) });
}
