import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Brand, Category, Food, Tag } from '../../domain/records.js';
import { isUuid, normaliseId } from '../../domain/ids.js';
import type {
  BrandQuery, CatalogHealth, CatalogState, CatalogStore, CategoryQuery, FoodHit, FoodQuery, FoodsOptions, ImportTransaction, NameSearchHit, Page,
  Stamped, StoreLogger, TagQuery, TextMatch,
} from '../catalog-store.js';
import { migrate } from './schema.js';
import { SqliteImport } from './writer.js';
import { checkReadable, enterWal, returnToWal, takeRollbackJournal } from './import-journal.js';
import {
  FOOD_COLUMNS, FOOD_HEAD_COLUMNS, FOOD_JSON_COLUMNS, brandRowToBrand, categoryRowToCategory, foodRowOf, foodRowToFood, foodRowToJson, tagRowToTag,
  type BrandRow, type CategoryRow, type FoodJsonValues, type FoodRow, type FoodValues, type TagRow,
} from '../record-rows.js';
import { CatalogDictionary } from '../dictionary.js';
import type { RecordRids } from '../../search/food-filters.js';
import { defaultSynonyms, foodHitsPage, foodJsonPage, linkedFoodJson, withCorrections, type FoodRowsPage } from '../food-pages.js';
import { brandsQuery, categoriesQuery, foodsQuery, tagsQuery, type BuiltQuery } from './queries.js';
import { SearchEngine, type StoreLookups } from '../../search/engine.js';
import type { Correction } from '../../search/plan.js';
import { recordsEngine } from '../../search/records.js';
import { Synonyms } from '../../search/synonyms.js';
import { loadSearchIndex } from './search-store.js';
import { MAX_MMAP_BYTES, mapPages } from './page-map.js';
import { SearchWarmUp, spreadRids } from '../warm-searches.js';
import { ClassificationNumbering, groupedMatches, type GroupedQuery, type Groups } from '../grouping.js';
import { inTurns } from '../turns.js';

/**
 * Reads through a memory map of the file (SQLite's `mmap_size`; writes still go through the
 * journal). A search reads its page's food rows (~20 random pages) and any postings not in
 * memory (tens of KiB to a few MiB of overflow pages), each page a pread into SQLite's cache
 * otherwise: at 1,000,000 foods, in process, a page of 20 rows took 0.14 → 0.095 ms and the
 * blobs a type-ahead search reads 0.40 → 0.17 ms. The mapped pages are the OS page cache's,
 * shared and reclaimable: they count in a process's resident size, not in its private memory.
 * SQLite maps at most its compile-time limit (2 GiB here) and reads the rest as before.
 */
export function mapForReading(db: Db): void {
  db.pragma(`mmap_size = ${MAX_MMAP_BYTES}`);
}

/**
 * Foods' `columns` (after their rid) by a JSON array of rids, a row per element. The array
 * drives (CROSS JOIN keeps it the outer loop) and each rid is a rowid lookup: `rid IN (SELECT
 * value FROM json_each(?))` first copied the rids into a temporary index, and with 8 MiB of
 * other memory read between two pages, as a search's lists are in a server, a page of 20 took
 * 15-18 % longer so (three alternated rounds at 1,000,000 foods).
 */
function rowsByRid(columns: string): string {
  return `SELECT f.rid, ${columns} FROM json_each(?) j CROSS JOIN foods f ON f.rid = j.value`;
}

/** A search page's foods as JSON columns, by a JSON array of rids (any order): the read every search's page makes. */
export const FOOD_JSON_BY_RID_SQL = rowsByRid(FOOD_JSON_COLUMNS);

/** The dictionary of a version, with the lookups SQLite answers from its tables. */
class Dictionary extends CatalogDictionary implements RecordRids {
  /** Brand rids in (name_key, id) order: the groups of grouping=brand. */
  readonly brandsInNameOrder: Uint32Array;
  private readonly byClassification: Statement<[string], number>;
  private readonly byBarcode: Statement<[string], number>;
  private readonly closure: Statement<[string], number>;

  constructor(state: CatalogState, db: Db) {
    const brands = db.prepare('SELECT rid, id, name, region, updated_at FROM brands ORDER BY name_key, id').all() as (BrandRow & { rid: number })[];
    super(state, {
      brands,
      categories: db.prepare('SELECT rid, id, name, region, parent_id, is_leaf, hierarchy, updated_at FROM categories').all() as
        (CategoryRow & { rid: number })[],
      tagsInNameOrder: db.prepare('SELECT rid, id, name, name_key, updated_at FROM tags ORDER BY name_key, id').all() as (TagRow & { rid: number })[],
    });
    this.brandsInNameOrder = Uint32Array.from(brands, (b) => b.rid);
    this.closure = db.prepare<[string], number>(`SELECT c.rid FROM category_closure cc JOIN categories c ON c.id = cc.descendant_id
      WHERE cc.ancestor_id IN (SELECT value FROM json_each(?))`).pluck();
    this.byClassification = db.prepare<[string], number>('SELECT rid FROM foods WHERE classification_key IN (SELECT value FROM json_each(?))').pluck();
    this.byBarcode = db.prepare<[string], number>('SELECT DISTINCT food_rid FROM food_upcs WHERE upc_key IN (SELECT value FROM json_each(?))').pluck();
  }

  upcFoods(keys: readonly string[]): number[] {
    return this.byBarcode.all(JSON.stringify(keys));
  }

  classificationFoods(values: readonly string[]): number[] {
    return this.byClassification.all(JSON.stringify(values.map((v) => v.toLowerCase())));
  }

  categoriesUnder(ids: readonly string[]): number[] {
    return this.closure.all(JSON.stringify(ids));
  }
}

export interface SqliteStoreOptions {
  /** Open for reading only (a read-only file or folder): never written, not even migrated; imports need a writable store. */
  readonly readonly?: boolean;
  /** SQLite's page cache, in MiB (default: 64 writable, 32 read-only). */
  readonly cacheMiB?: number;
  /**
   * Read the file through a memory map (SQLite's `mmap_size`, up to its 2 GiB build limit):
   * pages read are the OS page cache's, shared by the processes and not private memory, where
   * SQLite's own cache keeps a private copy of each. A serving process reads this way.
   */
  readonly mapped?: boolean;
  /** The synonym list searches use (default: the one that ships, src/search/synonyms.txt). */
  readonly synonyms?: Synonyms;
}

/** The searches of one catalogue version: foods from the stored search data, records from their names. */
interface Searches {
  readonly dictionary: Dictionary;
  readonly foods: SearchEngine;
  readonly records: Map<'brands' | 'categories' | 'tags', SearchEngine>;
  /** The groups of grouping=brand: each food's brand rid, brands in (name_key, id) order. */
  readonly brandGroups: Groups;
  /** The groups of grouping=classification, read on first use. */
  classifications?: Promise<Groups>;
}

/** The page a query's rids and total come to, with the version's searches they were made in. */
interface PageRids {
  readonly searches: Searches;
  readonly rids: readonly number[];
  readonly total: number;
  readonly corrections: readonly Correction[];
}

/** Rids read per step while a version's classifications are numbered: a step takes a few ms on a slow VM. */
const CLASSIFICATION_SLICE = 4096;

/** Up to `count` food names spread over the catalogue (warm-searches.ts): asked once per version, by a server and by bench/engine-profile. */
export function sampleFoodNames(db: Db, count: number): string[] {
  const last = (db.prepare('SELECT max(rid) FROM foods').pluck().get() as number | null) ?? 0;
  return db.prepare('SELECT name FROM foods WHERE rid IN (SELECT value FROM json_each(?)) ORDER BY rid').pluck()
    .all(JSON.stringify(spreadRids(last, count))) as string[];
}

export class SqliteCatalogStore implements CatalogStore {
  private readonly db: Db;
  private dictionary: Dictionary | undefined;
  private readonly stateStatement: Statement<[], { key: string; value: string }>;
  /** Moves whenever another connection commits: `meta` is read again only then. */
  private readonly dataVersion: Statement<[], number>;
  private seenDataVersion: number | undefined;
  private readonly foodById: Statement<[string], FoodRow>;
  private readonly foodByRevision: Statement<[string], FoodRow>;
  private readonly foodsByRid: Statement<[string], FoodValues>;
  private readonly foodHeadsByRid: Statement<[string], FoodValues>;
  private readonly foodJsonByRid: Statement<[string], FoodJsonValues>;
  private readonly firstFrom: Statement<[string], number>;
  private readonly statements = new Map<string, Statement>();
  private readonly synonyms: Synonyms;
  private searches: Searches | undefined;
  private readonly mapped: boolean;
  private filePages: CatalogHealth['filePages'];
  private listened = false;
  private warmUp: SearchWarmUp | undefined;
  private logger: StoreLogger | undefined;

  constructor(readonly path: string, options: SqliteStoreOptions = {}) {
    if (!options.readonly && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const readonly = options.readonly ?? false;
    this.db = new Database(path, { readonly, fileMustExist: readonly });
    try {
      if (readonly) checkReadable(this.db, path);
      else enterWal(this.db, path);
    } catch (error) {
      this.db.close();
      throw error;
    }
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    // Reads go through the OS page cache, so a smaller SQLite cache costs little; it also
    // bounds the memory SQLite's sorter takes before spilling to temp files. Imports keep a larger one.
    this.db.pragma(`cache_size = ${-1024 * (options.cacheMiB ?? (options.readonly ? 32 : 64))}`);
    this.mapped = options.mapped ?? false;
    if (this.mapped) mapForReading(this.db);
    if (!options.readonly) migrate(this.db);
    this.synonyms = options.synonyms ?? defaultSynonyms();
    this.stateStatement = this.db.prepare("SELECT key, value FROM meta WHERE key IN ('catalog_version', 'last_modified')");
    this.dataVersion = this.db.prepare<[], number>('PRAGMA data_version').pluck();
    this.beginBatch = this.db.prepare('BEGIN');
    this.endBatch = this.db.prepare('COMMIT');
    // Two statements rather than `id = ? OR revision_id = ?`: most requests name a foodId, and
    // then the revision index is never probed.
    this.foodById = this.db.prepare(`SELECT ${FOOD_COLUMNS} FROM foods f WHERE f.id = ?`);
    this.foodByRevision = this.db.prepare(`SELECT ${FOOD_COLUMNS} FROM foods f WHERE f.revision_id = ?`);
    this.foodsByRid = this.db.prepare<[string], FoodValues>(rowsByRid(FOOD_COLUMNS)).raw();
    this.foodHeadsByRid = this.db.prepare<[string], FoodValues>(rowsByRid(FOOD_HEAD_COLUMNS)).raw();
    this.foodJsonByRid = this.db.prepare<[string], FoodJsonValues>(FOOD_JSON_BY_RID_SQL).raw();
    this.firstFrom = this.db.prepare<[string], number>('SELECT rid FROM foods WHERE name_key >= ? ORDER BY name_key, id LIMIT 1').pluck();
  }

  /** The searches of the current catalogue version, made again when it moves. */
  private search(): Searches {
    const dictionary = this.current();
    if (this.searches?.dictionary !== dictionary) {
      const foods = new SearchEngine(loadSearchIndex(this.db), this.synonyms);
      const brandGroups: Groups = { of: foods.index.facts.brand, inNameOrder: dictionary.brandsInNameOrder, size: dictionary.limits.brand };
      this.searches = { dictionary, foods, records: new Map(), brandGroups };
    }
    return this.searches;
  }

  /** What the engine asks the store while searching foods. */
  private lookups(searches: Searches): StoreLookups {
    const { dictionary, foods } = searches;
    return {
      brandRid: (id) => dictionary.brandRid(id),
      tagRid: (id) => dictionary.tagRid(id),
      categoriesUnder: (ids) => dictionary.categoriesUnder(ids),
      classificationFoods: (values) => dictionary.classificationFoods(values),
      upcFoods: (keys) => dictionary.upcFoods(keys),
      limits: dictionary.limits,
      firstPlaceFrom: (key) => {
        const rid = this.firstFrom.get(key);
        return rid === undefined ? foods.index.meta.foods : foods.index.place[rid]!;
      },
    };
  }

  /** The engine of brand, category or tag names, built on first use in this version. */
  private records(kind: 'brands' | 'categories' | 'tags'): SearchEngine {
    const searches = this.search();
    let engine = searches.records.get(kind);
    if (engine === undefined) {
      const names = this.db.prepare(`SELECT rid, name_key AS name FROM ${kind}`).all() as { rid: number; name: string }[];
      engine = recordsEngine(names, this.synonyms);
      searches.records.set(kind, engine);
    }
    return engine;
  }

  /** The underlying connection, for the token store that shares the database file. */
  get connection(): Db {
    return this.db;
  }

  private readState(): CatalogState {
    let version = 0;
    let lastModified = 0;
    for (const row of this.stateStatement.all()) {
      if (row.key === 'catalog_version') version = Number(row.value);
      else lastModified = Number(row.value);
    }
    return { version, lastModified };
  }

  /**
   * Reads of one event-loop turn share one read transaction, ended when the turn's I/O has been
   * handled (setImmediate). Outside a transaction every statement takes and drops WAL read
   * locks (~7 µs at 1,000,000 foods, more than a by-id lookup itself); a shared one also checks
   * the catalogue version once a turn. A request still sees what was committed before it
   * arrived: the snapshot is at most one turn old. Not done inside another transaction (an
   * import on this connection).
   */
  private batchOpen = false;
  private readonly beginBatch: Statement;
  private readonly endBatch: Statement;

  private openBatch(): void {
    if (this.db.inTransaction) return;
    this.beginBatch.run();
    this.batchOpen = true;
    setImmediate(() => this.closeBatch());
  }

  private closeBatch(): void {
    if (!this.batchOpen) return;
    this.batchOpen = false;
    if (!this.db.open || !this.db.inTransaction) return;
    try {
      this.endBatch.run();
    } catch {
      // Only a write on this connection could fail to commit (a shared in-memory token store's
      // last-use times, retried at its next flush): never let it escape from setImmediate.
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
    }
  }

  /**
   * The dictionary of the current catalogue version. Every request asks, so the check is
   * `PRAGMA data_version`, which moves when another connection commits (an import in another
   * process); `meta` is read only then. This connection's own imports reset it on commit.
   */
  private current(): Dictionary {
    if (this.batchOpen && this.dictionary !== undefined) return this.dictionary;
    this.openBatch();
    const dataVersion = this.dataVersion.get()!;
    if (this.dictionary === undefined || dataVersion !== this.seenDataVersion) {
      this.seenDataVersion = dataVersion;
      const state = this.readState();
      if (this.dictionary?.state.version !== state.version) this.dictionary = new Dictionary(state, this.db);
    }
    return this.dictionary;
  }

  state(): Promise<CatalogState> {
    return Promise.resolve(this.current().state);
  }

  /** ~0.35 s at 1,000,000 foods: the dictionary and the search data's vocabulary and facts; the rest in turns once it listens. */
  warm(): Promise<void> {
    this.search();
    return Promise.resolve();
  }

  useLogger(logger: StoreLogger): void {
    this.logger = logger;
  }

  /**
   * Once the server listens, in turns: the search engine's commonest lists and bound orders, and, read through a
   * memory map, the pages read at random, once (page-map.ts); then the searches of its own
   * (warm-searches.ts), which would otherwise fault those pages in themselves.
   */
  listening(): void {
    if (this.listened) return;
    this.listened = true;
    const pages = this.mapped ? this.readPagesAhead() : Promise.resolve();
    this.warmUp = new SearchWarmUp(this, {
      sampleNames: (count) => Promise.resolve(this.sampleNames(count)),
      isOpen: () => this.db.open,
      engine: () => Promise.resolve(this.search().foods),
    }, () => this.logger, undefined, pages);
  }

  private readPagesAhead(): Promise<void> {
    this.filePages = 'reading';
    return mapPages(this.db).then((done) => {
      if (done.mapped) {
        this.filePages = 'read';
        this.logger?.info({ bytes: done.bytes, ms: Math.round(done.ms), busyMs: Math.round(done.busyMs) }, "read the pages searches read at random once through the database file's memory map, so that they do not fault them in");
      } else {
        this.filePages = 'by use';
        this.logger?.info({ bytes: done.bytes }, `left the database file's pages to be mapped by use: ${done.because}`);
      }
    }, (error: unknown) => {
      this.filePages = 'by use';
      this.logger?.warn({ err: error }, "could not read the database file's pages ahead; they are mapped by use");
    });
  }

  /** Up to `count` food names, one every so many rids (one read). */
  private sampleNames(count: number): string[] {
    return sampleFoodNames(this.db, count);
  }

  private healthOfVersion: CatalogHealth | undefined;

  /** The meta row and the food count are read again only when the catalogue version moves. */
  health(): Promise<CatalogHealth> {
    const { state } = this.current();
    if (this.healthOfVersion?.version !== state.version || this.healthOfVersion.lastModified !== state.lastModified) {
      const foods = this.prepared('SELECT count(*) FROM foods', 'value').get() as number;
      const seconds = this.prepared("SELECT value FROM meta WHERE key = 'last_import_seconds'", 'value').get() as string | undefined;
      this.healthOfVersion = { ...state, foods, ...(seconds !== undefined ? { lastImportSeconds: Number(seconds) } : {}) };
    } else {
      // Still a round trip: a store that cannot answer must not look ready.
      this.dataVersion.get();
    }
    return Promise.resolve({
      ...this.healthOfVersion,
      ...(this.filePages !== undefined ? { filePages: this.filePages } : {}),
      ...(this.warmUp !== undefined ? { searchWarmUp: this.warmUp.state } : {}),
    });
  }

  /** A food's row by foodId or current revisionId, with the dictionary to complete it. */
  private foodRow(idOrRevision: string): { row: FoodRow; dictionary: Dictionary } | undefined {
    if (!isUuid(idOrRevision)) return undefined;
    const id = normaliseId(idOrRevision);
    const dictionary = this.current();
    const row = this.foodById.get(id) ?? this.foodByRevision.get(id);
    return row ? { row, dictionary } : undefined;
  }

  food(idOrRevision: string): Promise<Stamped<Food> | undefined> {
    const found = this.foodRow(idOrRevision);
    return Promise.resolve(found && { value: foodRowToFood(found.row, found.dictionary), lastModified: found.row.updated_at });
  }

  foodJson(idOrRevision: string): Promise<Stamped<{ revisionId: string; json: string }> | undefined> {
    const found = this.foodRow(idOrRevision);
    return Promise.resolve(found && {
      value: { revisionId: found.row.revision_id, json: foodRowToJson(found.row, found.dictionary) }, lastModified: found.row.updated_at,
    });
  }

  brand(id: string): Promise<Stamped<Brand> | undefined> {
    return Promise.resolve(this.current().stampedBrand(normaliseId(id)));
  }

  category(id: string): Promise<Stamped<Category> | undefined> {
    return Promise.resolve(this.current().stampedCategory(normaliseId(id)));
  }

  tag(id: string): Promise<Stamped<Tag> | undefined> {
    const tag = this.current().tagsById.get(normaliseId(id));
    return Promise.resolve(tag ? { value: tag.value, lastModified: tag.lastModified } : undefined);
  }

  /**
   * Statements are prepared once per text and result shape: better-sqlite3's pluck/raw modes
   * stick to a statement, so each shape gets its own statement rather than toggling one.
   */
  private prepared(sql: string, shape: 'rows' | 'value' | 'arrays' = 'rows'): Statement {
    const key = `${shape}:${sql}`;
    let statement = this.statements.get(key);
    if (!statement) {
      statement = this.db.prepare(sql);
      if (shape === 'value') statement.pluck();
      if (shape === 'arrays') statement.raw();
      if (this.statements.size > 500) this.statements.clear();
      this.statements.set(key, statement);
    }
    return statement;
  }

  private run<T>(built: BuiltQuery): { total: number; rows: T[] } {
    const rows = this.prepared(built.page.text).all(...built.page.params) as T[];
    const total = this.prepared(built.count.text, 'value').get(...built.count.params) as number;
    return { total, rows };
  }

  /** The page's rids in order and the total, from the search engine or the general query (a grouped list: `groupedPageRids`). */
  private pageRids(query: FoodQuery): PageRids {
    const searches = this.search();
    // A barcode lookup without a query names a handful of foods through its index: the general query starts from them.
    const answer = query.upcs && !query.match ? undefined : searches.foods.foods(query, this.lookups(searches));
    const corrections = answer?.corrections ?? [];
    const { rids, total } = answer === undefined ? this.generalPage(query) : 'ranked' in answer ? this.generalPage(query, answer.ranked) : answer;
    return { searches, rids, total, corrections };
  }

  /**
   * A grouped list's page: the engine's own (grouped by brand, a few a group, in rank order), or
   * from memory (grouping.ts) over the engine's matches in order, else (barcodes alone) the
   * general query. A version's classifications are numbered once, in turns, the first
   * time a list is grouped by them; should the version move meanwhile, the general query answers.
   */
  private async groupedPageRids(query: GroupedQuery): Promise<PageRids> {
    const searches = this.search();
    const lookups = this.lookups(searches);
    const barcodes = query.upcs !== undefined && !query.match;
    const answer = barcodes ? undefined : searches.foods.foods(query, lookups);
    const corrections = answer?.corrections ?? [];
    if (answer !== undefined && !('ranked' in answer)) return { searches, rids: answer.rids, total: answer.total, corrections };
    if (barcodes) return this.pageRids(query);
    const groups = query.grouping.by === 'brand' ? searches.brandGroups : await this.classificationGroups(searches).catch(() => undefined);
    if (groups === undefined || this.search() !== searches) return this.pageRids(query);
    return { searches, ...groupedMatches(query, searches.foods, lookups, groups, answer?.ranked), corrections };
  }

  /**
   * The version's classification groups (grouping.ts ClassificationNumbering), read a slice of
   * rids at a time in turns between requests: seconds of CPU at 1,000,000 foods, once per version.
   */
  private classificationGroups(searches: Searches): Promise<Groups> {
    searches.classifications ??= (async () => {
      const ridLimit = searches.foods.index.place.length;
      const numbering = new ClassificationNumbering(ridLimit);
      const read = this.db.prepare<[number, number], [number, string, string]>('SELECT rid, classification_fold, classification FROM foods WHERE rid >= ? AND rid < ?').raw();
      const open = (): boolean => this.db.open && this.searches === searches;
      const slices = function* (): Generator<void, Groups, void> {
        for (let from = 0; from < ridLimit; from += CLASSIFICATION_SLICE) {
          for (const [rid, fold, raw] of read.all(from, from + CLASSIFICATION_SLICE)) numbering.add(rid, fold, raw);
          yield;
        }
        return yield* numbering.ordered();
      };
      const groups = await inTurns(slices(), open);
      if (groups === undefined) throw new Error('the catalogue version moved');
      return groups.value;
    })();
    searches.classifications.catch(() => {
      searches.classifications = undefined;
    });
    return searches.classifications;
  }

  /** The page's rows in order, with the dictionary of the version they were read in. */
  private foodPage(query: FoodQuery, page: PageRids, body = true): FoodRowsPage {
    const { searches, rids, total, corrections } = page;
    const byRid = new Map<number, FoodRow>();
    // As arrays (record-rows.ts foodRowOf): 20 rows took 130-137 µs of CPU as better-sqlite3's
    // row objects, 86-108 µs so (in process at 1,000,000 foods, the bench's cold searches).
    for (const values of (body ? this.foodsByRid : this.foodHeadsByRid).all(JSON.stringify(rids))) {
      const row = foodRowOf(values);
      byRid.set(row.rid, row);
    }
    return {
      dictionary: searches.dictionary, total, rows: rids.map((rid) => byRid.get(rid)!), corrections,
      linked: { rids, facts: searches.foods.index.facts },
    };
  }

  async foods(query: FoodQuery, options: FoodsOptions = { body: true }): Promise<Page<FoodHit>> {
    const page = query.grouping !== undefined ? await this.groupedPageRids({ ...query, grouping: query.grouping }) : this.pageRids(query);
    return foodHitsPage(query, this.foodPage(query, page, options.body), options);
  }

  foodsJson(query: FoodQuery): Promise<Page<string>> {
    if (query.grouping !== undefined) return this.groupedPageRids({ ...query, grouping: query.grouping }).then((page) => foodJsonPage(query, this.foodPage(query, page)));
    const { searches, rids, total, corrections } = this.pageRids(query);
    // Brands, categories and tags by rid (food-pages.ts linkedFoodJson): at 1,000,000 foods a
    // page of 20 read its rows in ~56 µs of CPU instead of ~62-83, and the lookups by id had
    // been ~4 % of a worker's time at 64 connections of type-ahead after words.
    const json = new Map<number, string>();
    const links = searches.foods.index.facts;
    for (const [rid, id, revision_id, region, name, classification, body] of this.foodJsonByRid.all(JSON.stringify(rids))) {
      json.set(rid, linkedFoodJson({ id, revision_id, region, name, classification, body }, rid, links, searches.dictionary));
    }
    return Promise.resolve(withCorrections({ total, items: rids.map((rid) => json.get(rid)!) }, corrections));
  }

  /** The SQL plan: lists without a query and prefixes the engine leaves to it; fts grouped over the engine's ranked matches. */
  private generalPage(query: FoodQuery, ranked?: readonly number[]): { rids: number[]; total: number } {
    const built = foodsQuery(query, () => ranked ?? []);
    const page = this.prepared(built.page.text, 'arrays').all(...built.page.params) as [number, number?][];
    // An empty first page is an empty result: counting it again would visit every match.
    const total = built.pageCarriesTotal && page.length > 0
      ? page[0]![1]!
      : page.length === 0 && query.offset === 0
        ? 0
        : (this.prepared(built.count.text, 'value').get(...built.count.params) as number);
    return { rids: page.map((r) => r[0]), total };
  }

  /** Records whose names match an fts query, by the engine, for the SQL to filter and page. */
  private matchedRecords(kind: 'brands' | 'categories' | 'tags', match: TextMatch | undefined): { rids: () => number[]; corrections: () => readonly Correction[] } {
    let found: { rids: number[]; corrections: readonly Correction[] } | undefined;
    const run = (): { rids: number[]; corrections: readonly Correction[] } =>
      (found ??= match?.type === 'fts' ? this.records(kind).matching(match.query) : { rids: [], corrections: [] });
    return { rids: () => run().rids, corrections: () => (match?.type === 'fts' ? run().corrections : []) };
  }

  brands(query: BrandQuery): Promise<Page<Brand>> {
    const matched = this.matchedRecords('brands', query.match);
    const { total, rows } = this.run<BrandRow>(brandsQuery(query, matched.rids));
    return Promise.resolve(withCorrections({ total, items: rows.map(brandRowToBrand) }, matched.corrections()));
  }

  categories(query: CategoryQuery): Promise<Page<Category>> {
    const matched = this.matchedRecords('categories', query.match);
    const { total, rows } = this.run<CategoryRow>(categoriesQuery(query, matched.rids));
    return Promise.resolve(withCorrections({ total, items: rows.map(categoryRowToCategory) }, matched.corrections()));
  }

  tags(query: TagQuery): Promise<Page<Tag>> {
    const matched = this.matchedRecords('tags', query.match);
    const { total, rows } = this.run<TagRow>(tagsQuery(query, matched.rids));
    return Promise.resolve(withCorrections({ total, items: rows.map(tagRowToTag) }, matched.corrections()));
  }

  searchFoodNames(words: readonly string[], limit: number): Promise<readonly NameSearchHit[]> {
    const searches = this.search();
    const rids = searches.foods.names(words, limit);
    const rows = this.prepared('SELECT f.id, f.name, f.category_id FROM json_each(?) j JOIN foods f ON f.rid = j.value ORDER BY j.key')
      .all(JSON.stringify(rids)) as { id: string; name: string; category_id: string }[];
    return Promise.resolve(rows.map((row) => ({
      id: row.id,
      name: row.name,
      categoryId: row.category_id,
      categoryName: searches.dictionary.category(row.category_id)?.name ?? '',
    })));
  }

  beginImport(options: { readonly replace: boolean }): Promise<ImportTransaction> {
    this.closeBatch();
    const alone = takeRollbackJournal(this.db, this.path);
    const ended = (): void => {
      if (alone) returnToWal(this.db);
    };
    try {
      return Promise.resolve(new SqliteImport(this.db, options.replace, {
        committed: () => {
          this.seenDataVersion = undefined;
        },
        ended,
      }));
    } catch (error) {
      ended();
      throw error;
    }
  }

  close(): Promise<void> {
    this.closeBatch();
    if (this.db.open) this.db.close();
    return Promise.resolve();
  }
}
