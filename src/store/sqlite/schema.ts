import type { Database } from 'better-sqlite3';
import { GENERIC_BRAND_IDS, GENERIC_BRAND_NAME, REGIONS } from '../../domain/regions.js';
import { fold } from '../../domain/text.js';
import { COMPLETE_KEY, SEARCH_DATA_DDL } from './postings.js';
import { TOP_DDL, rebuildSearchData } from './search-data.js';
import { upgradeToBarcodesAndDefaults } from './upgrade-6.js';

/**
 * 2: precomputed first pages and postings of common words.
 * 3: postings of every word with the name-only lists, coded parts, food facts (search-data.ts).
 * 4: name lengths by place, for prefix search in memory (name-order.ts).
 * 5: a common word's first foods as one list of rids (ranked_top.rids), not a row each.
 * 6: barcode lookup keys (food_upcs); stored bodies carry servings[].isDefault and defaultServing.
 */
export const SCHEMA_VERSION = 6;

/**
 * Text columns ending in `_key` hold folded text (lower case, no diacritics): name order
 * and prefix matching run on them with BINARY collation, so indexes serve both.
 * The FTS tables are contentless and index folded text too, so the JS folding is the only
 * folding and queries and documents always agree.
 */
const DDL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS brands (
  rid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL,
  region TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS brands_name ON brands (name_key, id);
CREATE INDEX IF NOT EXISTS brands_region_name ON brands (region, name_key, id);

CREATE TABLE IF NOT EXISTS categories (
  rid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL,
  region TEXT NOT NULL,
  parent_id TEXT,
  is_leaf INTEGER NOT NULL DEFAULT 1,
  hierarchy TEXT NOT NULL DEFAULT '[]',
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS categories_name ON categories (name_key, id);
CREATE INDEX IF NOT EXISTS categories_parent ON categories (parent_id);

-- Every category with itself and each ancestor: expands a non-leaf id to its leaves.
CREATE TABLE IF NOT EXISTS category_closure (
  ancestor_id TEXT NOT NULL,
  descendant_id TEXT NOT NULL,
  PRIMARY KEY (ancestor_id, descendant_id)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS tags (
  rid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS tags_name ON tags (name_key, id);

CREATE TABLE IF NOT EXISTS foods (
  rid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  revision_id TEXT NOT NULL UNIQUE,
  content_hash TEXT NOT NULL,
  region TEXT NOT NULL,
  brand_id TEXT NOT NULL,
  category_id TEXT NOT NULL,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL,
  classification TEXT NOT NULL,
  classification_key TEXT NOT NULL,
  classification_fold TEXT NOT NULL,
  tag_ids TEXT NOT NULL,
  body TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS foods_name ON foods (name_key, id);
CREATE INDEX IF NOT EXISTS foods_region_name ON foods (region, name_key, id);
CREATE INDEX IF NOT EXISTS foods_brand ON foods (brand_id);
CREATE INDEX IF NOT EXISTS foods_category ON foods (category_id);
CREATE INDEX IF NOT EXISTS foods_classification ON foods (classification_key);

CREATE TABLE IF NOT EXISTS food_tags (
  tag_id TEXT NOT NULL,
  food_rid INTEGER NOT NULL,
  PRIMARY KEY (tag_id, food_rid)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS food_tags_food ON food_tags (food_rid);

-- Each food's barcodes by lookup key (domain/barcodes.ts: 14-digit GTINs, UPC-E expanded).
CREATE TABLE IF NOT EXISTS food_upcs (
  upc_key TEXT NOT NULL,
  food_rid INTEGER NOT NULL,
  PRIMARY KEY (upc_key, food_rid)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS food_upcs_food ON food_upcs (food_rid);

CREATE VIRTUAL TABLE IF NOT EXISTS foods_fts USING fts5 (
  name, brand, classification, other_names, description,
  content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
);
CREATE VIRTUAL TABLE IF NOT EXISTS brands_fts USING fts5 (
  name, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
);
CREATE VIRTUAL TABLE IF NOT EXISTS categories_fts USING fts5 (
  name, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
);
CREATE VIRTUAL TABLE IF NOT EXISTS tags_fts USING fts5 (
  name, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
);
`;

/** Creates the schema when missing and makes sure both generic brands exist. */
export function migrate(db: Database): void {
  db.exec(DDL);
  db.exec(TOP_DDL);
  db.exec(SEARCH_DATA_DDL);
  const version = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'schema_version'").get();
  if (version && Number(version.value) > SCHEMA_VERSION) {
    throw new Error(`database schema ${version.value} is newer than this program (${SCHEMA_VERSION}); upgrade foodlookup`);
  }
  const now = Date.now();
  const setMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING');
  const addBrand = db.prepare(
    'INSERT INTO brands (id, name, name_key, region, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING RETURNING rid',
  );
  const addBrandFts = db.prepare('INSERT INTO brands_fts (rowid, name) VALUES (?, ?)');
  // IMMEDIATE: the write lock first. The workers of `serve --workers N` open the file at once, and
  // a transaction that reads and then writes could not wait for another's (SQLITE_BUSY at once).
  db.transaction(() => {
    // A database written by an older version gains the search data the first time it is opened for writing.
    const complete = db.prepare('SELECT 1 FROM search_blobs WHERE key = ?').get(COMPLETE_KEY) !== undefined;
    if (version && Number(version.value) < 6) upgradeToBarcodesAndDefaults(db);
    if (version && (Number(version.value) < SCHEMA_VERSION || !complete)) rebuildSearchData(db);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(SCHEMA_VERSION));
    setMeta.run('schema_version', String(SCHEMA_VERSION));
    setMeta.run('catalog_version', '1');
    setMeta.run('last_modified', String(now));
    for (const region of REGIONS) {
      const row = addBrand.get(GENERIC_BRAND_IDS[region], GENERIC_BRAND_NAME, fold(GENERIC_BRAND_NAME), region, now) as
        | { rid: number }
        | undefined;
      if (row) addBrandFts.run(row.rid, fold(GENERIC_BRAND_NAME));
    }
  }).immediate();
}
