import type { Database, Statement } from 'better-sqlite3';
import { isGenericBrand } from '../../domain/regions.js';
import { buildSearchData, type BuildOptions, type SearchFoodRow, type SearchSource } from '../../search/build.js';
import { SearchBuildThread } from '../../search/build-thread.js';
import { MemoryBlobs, type SearchBlobs } from '../../search/blobs.js';
import { SearchIndex } from '../../search/search-index.js';
import { searchTexts } from '../food-row.js';

/**
 * The SQLite side of the search engine's store interface (src/search/README.md): the rows the
 * engine builds its data from, read inside the import's transaction, and the table its blobs
 * are kept in. Everything else is the engine's.
 */

/**
 * A rowid table with its key in an index, not WITHOUT ROWID: there the whole record is the
 * B-tree's key, so interior pages hold the blobs' leading bytes and a lookup compares against
 * every spilled record read whole from its overflow pages. At 1,000,000 foods a 5 KiB postings
 * blob took 15-50 µs to read so, 2-4 µs from a rowid table (schema 8).
 */
export const SEARCH_BLOBS_DDL = 'CREATE TABLE IF NOT EXISTS search_blobs (key TEXT PRIMARY KEY, value BLOB NOT NULL)';

/** Moves the blobs of a WITHOUT ROWID table (schema 7) into a rowid one, as they are: the data and its version stay. */
export function upgradeSearchBlobsTable(db: Database): void {
  const ddl = db.prepare<[], string>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'search_blobs'").pluck().get();
  if (ddl === undefined || !/WITHOUT\s+ROWID/i.test(ddl)) return;
  db.exec(`ALTER TABLE search_blobs RENAME TO search_blobs_7;
    ${SEARCH_BLOBS_DDL};
    INSERT INTO search_blobs (key, value) SELECT key, value FROM search_blobs_7;
    DROP TABLE search_blobs_7`);
}

/** The blobs of the catalogue's current version, read as the engine asks for them. */
export class SqliteSearchBlobs implements SearchBlobs {
  private readonly read: Statement<[string], Buffer>;

  constructor(db: Database) {
    this.read = db.prepare<[string], Buffer>('SELECT value FROM search_blobs WHERE key = ?').pluck();
  }

  get(name: string): Uint8Array | undefined {
    return this.read.get(name);
  }
}

/** Whether the foods table has the search columns (schema 6): older ones keep those texts in the body. */
function hasSearchColumns(db: Database): boolean {
  return db.prepare("SELECT 1 FROM pragma_table_info('foods') WHERE name = 'servings'").get() !== undefined;
}

/** One more than the largest food rid (SearchSource.ridLimit). */
export function foodRidLimit(db: Database): number {
  return ((db.prepare('SELECT max(rid) FROM foods').pluck().get() as number | null) ?? 0) + 1;
}

/** The catalogue's foods, brands and tags as the engine's builder reads them. */
export function sqliteSearchSource(db: Database): SearchSource {
  const columns = hasSearchColumns(db);
  return {
    ridLimit: foodRidLimit(db),
    *foods(): Iterable<SearchFoodRow> {
      // Brand and category rids from their ids in memory: a lookup by uuid in SQLite took ~3 µs a food.
      const rids = (table: string): Map<string, number> => new Map((db.prepare(`SELECT id, rid FROM ${table}`).raw().all() as [string, number][]));
      const brandRid = rids('brands');
      const categoryRid = rids('categories');
      const texts = columns ? 'other_names_fold, description_fold, servings' : "body, '', 0";
      // In rid order: the table read straight through (in name order, each row was a random page read).
      const rows = db.prepare(`SELECT rid, name_key, classification_fold, ${texts}, region, brand_id, category_id
        FROM foods ORDER BY rid`).raw().iterate() as IterableIterator<[number, string, string, string, string, number, string, string, string]>;
      for (const [rid, name, classification, otherNames, description, servings, region, brandId, categoryId] of rows) {
        const brand = brandRid.get(brandId) ?? 0;
        const category = categoryRid.get(categoryId) ?? 0;
        if (columns) {
          yield { rid, name, classification, otherNames, description, servings, region, brand, category };
        } else {
          const body = JSON.parse(otherNames) as { otherNames?: string[]; description?: string; servings?: unknown[] };
          const folded = searchTexts(body);
          yield { rid, name, classification, otherNames: folded.otherNames, description: folded.description, servings: body.servings?.length ?? 0, region, brand, category };
        }
      }
    },
    // The name index alone (it holds the rid): no table page is read.
    nameOrder: () => db.prepare('SELECT rid FROM foods ORDER BY name_key, id').pluck().iterate() as IterableIterator<number>,
    brands: () => (db.prepare('SELECT rid, id, name_key FROM brands').raw().all() as [number, string, string][])
      .map(([rid, id, name]) => ({ rid, name, generic: isGenericBrand(id) })),
    *tagFoods() {
      const foodsOf = db.prepare<[string], number>('SELECT food_rid FROM food_tags WHERE tag_id = ?').pluck();
      for (const [tag, id] of db.prepare('SELECT rid, id FROM tags ORDER BY id').raw().iterate() as IterableIterator<[number, string]>) {
        yield { tag, foods: foodsOf.all(id) };
      }
    },
  };
}

/** What this store asks of the build: it reads blobs as searches ask for them. */
const BUILD_OPTIONS: BuildOptions = { prefixUnions: true };

/** Empties the blobs table for a new version's; returns how to put one. */
function newBlobs(db: Database): (name: string, bytes: Uint8Array) => void {
  db.exec('DELETE FROM search_blobs');
  const insert = db.prepare('INSERT INTO search_blobs (key, value) VALUES (?, ?)');
  return (name, bytes) => void insert.run(name, bytes);
}

/** Rewrites the search data of the whole catalogue inside the caller's transaction. */
export function rebuildSearchData(db: Database): { words: number } {
  const put = newBlobs(db);
  return buildSearchData(sqliteSearchSource(db), { put }, BUILD_OPTIONS);
}

/** The search data of the whole catalogue being rewritten on a thread of its own (writer.ts). */
export interface SearchRebuild {
  /** Sends the name order: once the foods' name index is there, if the import dropped it. */
  nameOrder(): void;
  /** Puts the blobs as they come; resolves once the last (`meta`) is in. */
  finish(): Promise<void>;
  /** Ends it unfinished. */
  stop(): Promise<void>;
}

/**
 * Starts rewriting the search data inside the caller's transaction on a build thread
 * (search/build-thread.ts): every food's row and the tags are read and sent, at the pace the
 * build takes them, which needs no index but the tables' own; the caller then goes on with its
 * work and calls `nameOrder()`, then `finish()`. The foods, brands and tags must not change
 * once this is called.
 */
export async function startSearchRebuild(db: Database): Promise<SearchRebuild> {
  const put = newBlobs(db);
  const source = sqliteSearchSource(db);
  const thread = new SearchBuildThread(source, BUILD_OPTIONS, put);
  try {
    // No other statement runs on the connection meanwhile: blobs come only after the last food.
    await thread.foods(source.foods());
    thread.tagFoods(source.tagFoods());
  } catch (error) {
    await thread.stop();
    throw error;
  }
  return {
    nameOrder: () => thread.nameOrder(source.nameOrder()),
    finish: async () => void (await thread.finish()),
    stop: () => thread.stop(),
  };
}

/** The search index of the database's current version: its stored blobs, or (a database older than them, open read-only) built in memory. */
export function loadSearchIndex(db: Database): SearchIndex {
  const stored = new SqliteSearchBlobs(db);
  if (SearchIndex.current(stored)) return SearchIndex.load(stored)!;
  const memory = new MemoryBlobs();
  buildSearchData(sqliteSearchSource(db), memory);
  return SearchIndex.load(memory)!;
}
