import type { Database } from 'better-sqlite3';
import { GENERIC_BRAND_IDS, GENERIC_BRAND_NAME, REGIONS } from '../../domain/regions.js';
import { fold } from '../../domain/text.js';
import { SearchIndex } from '../../search/search-index.js';
import { searchTexts } from '../food-row.js';
import { SEARCH_BLOBS_DDL, SqliteSearchBlobs, rebuildSearchData, upgradeSearchBlobsTable } from './search-store.js';
import { upgradeToBarcodesAndDefaults } from './upgrade-6.js';

/**
 * 2: precomputed first pages and postings of common words.
 * 3: postings of every word with the name-only lists, coded parts, food facts.
 * 4: name lengths by place, for prefix search in memory (name-order.ts).
 * 5: a common word's first foods as one list of rids (ranked_top.rids), not a row each.
 * 6: barcode lookup keys (food_upcs); stored bodies carry servings[].isDefault and defaultServing.
 * 7: the search engine's own data (src/search) in search_blobs; the foods' other names,
 *    description and servings count as columns it reads; no FTS5 tables.
 * 8: search_blobs is a rowid table (search-store.ts SEARCH_BLOBS_DDL): blobs read 5-10x faster.
 */
export const SCHEMA_VERSION = 8;

/**
 * Text columns ending in `_key` hold folded text (lower case, no diacritics): name order
 * and prefix matching run on them with BINARY collation, so indexes serve both. `_fold`
 * columns are the folded texts the search engine reads (src/search/build.ts).
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
  other_names_fold TEXT NOT NULL DEFAULT '',
  description_fold TEXT NOT NULL DEFAULT '',
  servings INTEGER NOT NULL DEFAULT 0,
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
`;

/** Tables of schema 6 and older that schema 7 has no use for: FTS5's and the old search data's. */
const RETIRED = ['foods_fts', 'brands_fts', 'categories_fts', 'tags_fts', 'word_postings', 'ranked_top', 'ranked_terms', 'term_postings'];

/**
 * A database of schema 6 or older: the search columns of foods filled from the stored bodies,
 * the FTS5 tables and the old search data dropped (the engine's is built after).
 */
function upgradeFoods(db: Database): void {
  const columns = new Set((db.prepare("SELECT name FROM pragma_table_info('foods')").pluck().all() as string[]));
  if (!columns.has('servings')) {
    db.exec(`ALTER TABLE foods ADD COLUMN other_names_fold TEXT NOT NULL DEFAULT '';
      ALTER TABLE foods ADD COLUMN description_fold TEXT NOT NULL DEFAULT '';
      ALTER TABLE foods ADD COLUMN servings INTEGER NOT NULL DEFAULT 0`);
    const update = db.prepare('UPDATE foods SET other_names_fold = ?, description_fold = ?, servings = ? WHERE rid = ?');
    for (const [rid, body] of db.prepare('SELECT rid, body FROM foods').raw().all() as [number, string][]) {
      const parsed = JSON.parse(body) as { otherNames?: string[]; description?: string; servings?: unknown[] };
      const texts = searchTexts(parsed);
      update.run(texts.otherNames, texts.description, parsed.servings?.length ?? 0, rid);
    }
  }
  for (const table of RETIRED) db.exec(`DROP TABLE IF EXISTS "${table}"`);
}

/** Creates the schema when missing and makes sure both generic brands exist. */
export function migrate(db: Database): void {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get() !== undefined;
  const stored = hasMeta ? db.prepare<[], string>("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get() : undefined;
  if (stored !== undefined && Number(stored) > SCHEMA_VERSION) {
    throw new Error(`database schema ${stored} is newer than this program (${SCHEMA_VERSION}); upgrade foodlookup`);
  }
  const now = Date.now();
  // IMMEDIATE: the write lock first. The workers of `serve --workers N` open the file at once, and
  // a transaction that reads and then writes could not wait for another's (SQLITE_BUSY at once).
  db.transaction(() => {
    if (stored !== undefined && Number(stored) < SCHEMA_VERSION) upgradeFoods(db);
    db.exec(DDL);
    if (stored !== undefined && Number(stored) < 8) upgradeSearchBlobsTable(db);
    db.exec(SEARCH_BLOBS_DDL);
    if (stored !== undefined && Number(stored) < 6) upgradeToBarcodesAndDefaults(db);
    const setMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING');
    const addBrand = db.prepare(
      'INSERT INTO brands (id, name, name_key, region, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
    );
    let added = false;
    for (const region of REGIONS) {
      if (addBrand.run(GENERIC_BRAND_IDS[region], GENERIC_BRAND_NAME, fold(GENERIC_BRAND_NAME), region, now).changes > 0) added = true;
    }
    db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(SCHEMA_VERSION));
    setMeta.run('schema_version', String(SCHEMA_VERSION));
    setMeta.run('catalog_version', '1');
    setMeta.run('last_modified', String(now));
    // A database written by an older version (or by a build whose search data differs) gains
    // the search data the first time it is opened for writing; a new one gets it with its
    // generic brands. The version moves, so readers open on it load the new data.
    if (added || !SearchIndex.current(new SqliteSearchBlobs(db))) {
      rebuildSearchData(db);
      if (stored !== undefined) db.prepare("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'catalog_version'").run();
    }
  }).immediate();
}
