import type pg from 'pg';
import type { Brand, Category, Food, Tag } from '../../domain/records.js';
import { isUuid, normaliseId } from '../../domain/ids.js';
import { fold } from '../../domain/text.js';
import type {
  BrandQuery, CatalogHealth, CatalogState, CatalogStore, CategoryQuery, FoodFilters, FoodHit, FoodQuery, FoodsOptions, ImportTransaction, NameSearchHit, Page,
  Stamped, StoreLogger, TagQuery, TextMatch,
} from '../catalog-store.js';
import { CatalogDictionary } from '../dictionary.js';
import { defaultSynonyms, foodHitsPage, foodJsonPage, withCorrections, type FoodRowsPage } from '../food-pages.js';
import * as lists from '../list-queries.js';
import type { BuiltQuery } from '../list-queries.js';
import {
  brandRowToBrand, categoryRowToCategory, foodRowOf, foodRowToFood, foodRowToJson, tagRowToTag,
  type BrandRow, type CategoryRow, type FoodRow, type FoodValues, type TagRow,
} from '../record-rows.js';
import { MemoryBlobs } from '../../search/blobs.js';
import { buildSearchData } from '../../search/build.js';
import { SearchEngine, type StoreLookups } from '../../search/engine.js';
import { listedInNameOrder } from '../../search/name-order.js';
import type { Correction } from '../../search/plan.js';
import { recordsEngine } from '../../search/records.js';
import { SearchIndex } from '../../search/search-index.js';
import type { Synonyms } from '../../search/synonyms.js';
import { envInteger } from '../../config.js';
import { describeDatabase, endPool, isUnavailable, LOAD_TIMEOUT_MS, openPool, unavailableOr } from './connection.js';
import { CatalogFollower } from './follow.js';
import { foodReads, numbered, PostgresDialect, textArrayLiteral, unmatchablePrefix, type FoodReads, type Prepared } from './queries.js';
import { ClassificationNumbering, groupedMatches, type GroupedQuery, type Groups } from '../grouping.js';
import { FoodRowCache, FoodRowReader, READ_TYPES } from './records.js';
import { RowAddresses } from './row-addresses.js';
import { ROW_FILE_COLUMNS, RowFile } from './row-file.js';
import { textRows } from './text-rows.js';
import { catalogVersionOf, META_TABLE, migrate } from './schema.js';
import { PG_BUILD, copyOutOf, readSearchBlobs, readSearchSource } from './search-store.js';
import { beginPostgresImport } from './writer.js';
import { SearchWarmUp, spreadRids } from '../warm-searches.js';
import { inTurns } from '../turns.js';

/**
 * The catalogue in PostgreSQL, read side (the import is writer.ts). Each committed catalogue
 * version N lives in its own schema (schema.ts); a replica loads one version's brands,
 * categories, tags and search data into memory, answers searches from memory with the engine
 * (src/search) exactly as the SQLite store does, and reads food rows and the lists' SQL from that
 * version's schema. When an import commits version N+1 (follow.ts hears of it within a second),
 * N+1 is loaded beside N and then takes its place in one assignment: a request takes the version
 * once, at its start, and is answered wholly from it; at most two versions are ever held.
 */

/** How long a replica warms a new version's search engine before it switches to it (`warmBeforeSwitch`; FOODLOOKUP_SWITCH_WARM_MS, 0: not at all). */
const switchWarmMs = (): number => envInteger('FOODLOOKUP_SWITCH_WARM_MS', 0, 2_000);
/** Rids per read of the classification groups, each slice numbered in one piece of the event loop (p50 ~7 ms at 10,000 on a slow VM, ~110 ms at 100,000). */
const CLASSIFICATION_SLICE = 10_000;
/** Food rows held per version (~1 KB each): by-id answers and repeated pages without a round trip. */
const FOOD_ROWS_CACHED = 20_000;
/** Keys of prefix runs' places held per version (a key and a number each). */
const PLACES_CACHED = 50_000;
/**
 * Classification and barcode lookups held per version, for the in-memory filters: their rids
 * (4 bytes each) and, for each lookup, its key and entry as so many rids more, so that lookups
 * that find nothing (unknown barcodes) are bounded too.
 */
const LOOKUP_RIDS_CACHED = 2_000_000;
/** After a failed copy of a version's rows to the local disk, the next try (while it is still the version answered); tests shorten it. */
const rowCopyRetryMs = (): number => envInteger('FOODLOOKUP_ROW_COPY_RETRY_MS', 100, 30_000);
const lookupWeight = (key: string, rids: Uint32Array): number => rids.length + 16 + (key.length >> 1);

/** Holds a lookup's rids in its version, dropping the oldest held while they would weigh too much. */
function remember(v: Version, key: string, rids: Uint32Array): Uint32Array {
  const weight = lookupWeight(key, rids);
  for (const [oldest, held] of v.lookups) {
    if (v.lookupRids + weight <= LOOKUP_RIDS_CACHED) break;
    v.lookups.delete(oldest);
    v.lookupRids -= lookupWeight(oldest, held);
  }
  v.lookups.set(key, rids);
  v.lookupRids += weight;
  return rids;
}

type RecordKind = 'brands' | 'categories' | 'tags';

/** One catalogue version, loaded: everything a request needs from memory, and where its rows are. */
interface Version {
  readonly state: CatalogState;
  readonly dialect: PostgresDialect;
  readonly sql: FoodReads;
  readonly dictionary: CatalogDictionary;
  /** Category id → rids of itself and every category below it. */
  readonly closure: ReadonlyMap<string, readonly number[]>;
  readonly engine: SearchEngine;
  /** Records' folded names, for their fts engines (made on first use). */
  readonly names: Readonly<Record<RecordKind, readonly { rid: number; name: string }[]>>;
  readonly records: Map<RecordKind, SearchEngine>;
  readonly rows: FoodRowReader;
  /** Where each food row lies in the table (read with the classification groups), once known and while right. */
  addresses?: RowAddresses;
  /** The version's rows on this replica's disk (row-file.ts), once copied; its pages are read from there. */
  rowFile?: RowFile;
  /** Where that copy stands; undefined when the store makes none (no `rowCopyDir`). */
  localRows?: 'copying' | 'ready' | 'failed';
  /** Ends that copy while it runs (the version is replaced, the store closes). */
  readonly stopCopy: AbortController;
  /** Food rids by classification or barcode list (the filters the engine tests in memory). */
  readonly lookups: Map<string, Uint32Array>;
  /** Place in name order of the first food whose folded name is ≥ a key (prefix searches' runs). */
  readonly places: Map<string, number>;
  /** What `lookups` holds, in rids (lookupWeight). */
  lookupRids: number;
  /** The groups of grouping=brand: each food's brand rid, brands in (name_key, id) order. */
  readonly brandGroups: Groups;
  /** The groups of grouping=classification, read on first use. */
  classifications?: Promise<Groups>;
  readonly lastImportSeconds?: number;
}

export interface PostgresStoreOptions {
  /** The synonym list searches use (default: the one that ships). */
  readonly synonyms?: Synonyms;
  /** Connections in the pool. */
  readonly poolSize?: number;
  /** Follow committed imports (default true; false for a command that reads once). */
  readonly follow?: boolean;
  /**
   * A folder on this replica's own disk where each version's food rows are copied once loaded
   * (row-file.ts), so that pages are read without a round trip; absent: every page's rows come
   * from PostgreSQL.
   */
  readonly rowCopyDir?: string;
}

/** The largest code point: `key < prefix + MAX_CHAR` bounds a prefix range (as name-order.ts). */
const MAX_CHAR = String.fromCodePoint(0x10ffff);

/** Ends a version's copy of its rows, made or being made: its pages are read from PostgreSQL after. */
function dropRowCopy(v: Version): void {
  v.stopCopy.abort();
  v.rowFile?.close();
}

/** An error's message for a log line (errors of this store name the server, never the password). */
function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An error of opening as one line naming the server, never the password. */
function openingError(error: unknown, url: string): Error {
  if (isUnavailable(error)) return unavailableOr(error, url) as Error;
  return new Error(`PostgreSQL at ${describeDatabase(url)}: ${errorText(error)}`);
}

export class PostgresCatalogStore implements CatalogStore {
  private readonly pool: pg.Pool;
  private readonly synonyms: Synonyms;
  private version: Version | undefined;
  private opening: Promise<Version> | undefined;
  private loading: Promise<void> | undefined;
  private follower: CatalogFollower | undefined;
  private closed = false;
  private logger: StoreLogger | undefined;
  private warmUp: SearchWarmUp | undefined;
  /** What was to be logged before the app's logger existed (a copy made while the server warmed up). */
  private readonly unlogged: [level: keyof StoreLogger, details: object, message: string][] = [];

  constructor(readonly url: string, private readonly options: PostgresStoreOptions = {}) {
    this.pool = openPool(url, { max: options.poolSize ?? 10, applicationName: 'foodlookup serve' });
    this.synonyms = options.synonyms ?? defaultSynonyms();
  }

  useLogger(logger: StoreLogger): void {
    this.logger = logger;
    for (const [level, details, message] of this.unlogged.splice(0)) logger[level](details, message);
  }

  private log(level: keyof StoreLogger, details: object, message: string): void {
    if (this.logger !== undefined) this.logger[level](details, message);
    else if (this.unlogged.length < 20) this.unlogged.push([level, details, message]);
  }

  /** The pool, for the token store and imports that share the database. */
  get connection(): pg.Pool {
    return this.pool;
  }

  /**
   * Creates or upgrades the tables (schema.ts, safe when replicas start at once) and proves the
   * server answers and takes the credentials; a one-line error naming the host otherwise.
   */
  async prepare(): Promise<void> {
    try {
      await migrate(this.pool);
    } catch (error) {
      throw openingError(error, this.url);
    }
  }

  private async query<R>(text: string, values: readonly unknown[] = [], options: { readonly rowMode?: 'array' } = {}): Promise<R[]> {
    try {
      const result = await this.pool.query({ text, values: values as unknown[], types: READ_TYPES, ...options });
      return result.rows as R[];
    } catch (error) {
      throw unavailableOr(error, this.url);
    }
  }

  /**
   * A query of the hot paths (a food by id, a prefix's places; a page's rows: textRows) as a
   * named prepared statement: each connection parses and plans it once, not on every request (a
   * page's rows: PostgreSQL's CPU 147 → 120 µs, ours 104 → 81 µs, at 1,000,000 foods).
   */
  private prepared<R>(statement: Prepared, values: readonly unknown[]): Promise<R[]> {
    return this.pool.query({ ...statement, values: values as unknown[], types: READ_TYPES }).then(
      (result) => result.rows as R[],
      (error: unknown) => {
        throw unavailableOr(error, this.url);
      },
    );
  }

  /**
   * The rows of these rids, in any order: by their addresses when they are known (a TID scan),
   * else, and for any row not found there (the table was rewritten), through the rid index.
   */
  private async readRows(v: Version, rids: readonly number[]): Promise<(FoodRow & { rid: number })[]> {
    const addresses = v.addresses?.literal(rids);
    let rows: (FoodRow & { rid: number })[] = [];
    let missing = rids;
    if (addresses !== undefined) {
      rows = (await this.textRows(v.sql.rowsByTid, [addresses])).map(foodRowOf);
      const wanted = new Set(rids);
      rows = rows.filter((row) => wanted.delete(row.rid));
      if (wanted.size === 0) return rows;
      v.addresses = undefined;
      missing = [...wanted];
    }
    return rows.concat((await this.textRows(v.sql.rowsByRid, [`{${missing.join(',')}}`])).map(foodRowOf));
  }

  /** A prepared statement's food rows as the text PostgreSQL sends (text-rows.ts: no row description, no parser per value). */
  private textRows(statement: Prepared, values: readonly string[]): Promise<FoodValues[]> {
    // Every column of a food row is NOT NULL (schema.ts): the texts are FoodValues as they are.
    return textRows(this.pool, statement, values).then(
      (rows) => rows as unknown as FoodValues[],
      (error: unknown) => {
        throw unavailableOr(error, this.url);
      },
    );
  }

  private async run<R>(sql: lists.Sql): Promise<R[]> {
    const { text, values } = numbered(sql);
    return this.query<R>(text, values);
  }

  /** The loaded version; the first call prepares the database and loads the current one. */
  private ready(): Promise<Version> {
    if (this.version !== undefined) return Promise.resolve(this.version);
    this.opening ??= (async () => {
      await this.prepare();
      await this.refresh();
      if (this.options.follow ?? true) {
        this.follower ??= new CatalogFollower(this.url, this.pool, (version) => {
          if (version !== this.version?.state.version) this.refresh().catch(() => undefined);
        });
      }
      return this.version!;
    })().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  /** Loads the committed version when it is not the one held, then switches to it (one load at a time). */
  private refresh(): Promise<void> {
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async load(): Promise<void> {
    const meta = new Map((await this.query<{ key: string; value: string }>(
      `SELECT key, value FROM ${META_TABLE} WHERE key IN ('catalog_version', 'catalog_schema', 'last_modified', 'last_import_seconds')`,
    )).map((r) => [r.key, r.value]));
    const schema = meta.get('catalog_schema');
    if (schema === undefined || catalogVersionOf(schema) === undefined) {
      throw new Error(`PostgreSQL at ${describeDatabase(this.url)} holds no catalogue: its ${META_TABLE} names no catalogue schema`);
    }
    const state: CatalogState = { version: Number(meta.get('catalog_version') ?? 0), lastModified: Number(meta.get('last_modified') ?? 0) };
    const held = this.version;
    if (held !== undefined && held.state.version === state.version && held.dialect.schema === schema) return;
    const seconds = meta.get('last_import_seconds');
    const loaded = await this.loadVersion(schema, state, seconds === undefined ? undefined : Number(seconds));
    if (this.closed) return;
    if (held !== undefined) await this.warmBeforeSwitch(loaded);
    if (this.closed) return;
    this.version = loaded;
    // Requests still on the previous version read their rows from PostgreSQL from now on.
    if (held !== undefined) dropRowCopy(held);
    this.copyRows(loaded);
    // Read now rather than by the first request that groups by classification (seconds at 1,000,000 foods).
    this.classificationGroups(loaded).catch(() => undefined);
  }

  /**
   * A version an import made while this replica serves: its search engine's lists and bound
   * orders (engine.ts `warmSteps`), made in turns while the held version answers, so that its
   * first searches do not make them at once (at 1,000,000 foods on a slow VM the first search
   * after an import took ~0.5 s, and the next ones up to ~0.1 s each). At most
   * FOODLOOKUP_SWITCH_WARM_MS (2 s): under a load that leaves few turns, the rest is made in turns after the
   * switch (a search that needs an order first makes it at once, as before). A replica's first
   * version is warmed by the server (`warm`, then `listening`).
   */
  private async warmBeforeSwitch(v: Version): Promise<void> {
    const started = performance.now();
    const steps = v.engine.warmSteps();
    const until = started + switchWarmMs();
    // The warm-up only spares the first searches work: when it fails, the version is switched
    // to all the same, and its searches make what they need as they come.
    const failed = (error: unknown): 'failed' => {
      this.log('warn', { version: v.state.version, err: errorText(error) }, "warming the new catalogue version's search engine failed: its first searches make what they need");
      return 'failed';
    };
    const before = await inTurns(steps, () => !this.closed && performance.now() < until).catch(failed);
    if (before === 'failed') return;
    const details = { version: v.state.version, ms: Math.round(performance.now() - started) };
    if (before !== undefined) {
      this.log('info', details, "warmed the new catalogue version's search engine in turns before switching to it");
      return;
    }
    if (this.closed) return;
    // Switched to next (load): the rest in turns while it is the version answered.
    void inTurns(steps, () => !this.closed && this.version === v).then((after) => {
      if (after !== undefined) this.log('info', { ...details, ms: Math.round(performance.now() - started) }, "warmed the new catalogue version's search engine in turns, partly after switching to it");
    }, failed);
  }

  /** A version's dictionary and search data, read while the previous version keeps answering. */
  private async loadVersion(schema: string, state: CatalogState, lastImportSeconds: number | undefined): Promise<Version> {
    const dialect = new PostgresDialect(schema);
    const t = (name: string): string => dialect.table(name);
    const [brands, categories, tags, closureRows, blobs] = await Promise.all([
      this.query<BrandRow & { rid: number; name_key: string }>(`SELECT rid, id, name, name_key, region, updated_at FROM ${t('brands')} ORDER BY name_key, id`),
      this.query<CategoryRow & { rid: number; name_key: string }>(
        `SELECT rid, id, name, name_key, region, parent_id, is_leaf, hierarchy, updated_at FROM ${t('categories')}`),
      this.query<TagRow & { rid: number }>(`SELECT rid, id, name, name_key, updated_at FROM ${t('tags')} ORDER BY name_key, id`),
      this.query<{ ancestor_id: string; rid: number }>(`SELECT cc.ancestor_id, c.rid FROM ${t('category_closure')} cc
        JOIN ${t('categories')} c ON c.id = cc.descendant_id`),
      this.readBlobs(schema),
    ]);
    const closure = new Map<string, number[]>();
    for (const { ancestor_id: ancestor, rid } of closureRows) {
      let under = closure.get(ancestor);
      if (under === undefined) closure.set(ancestor, (under = []));
      under.push(rid);
    }
    // The bytes read are kept as they are (MemoryBlobs would copy each: ~70 MiB more at
    // 1,000,000 foods while two versions are held).
    const index = SearchIndex.load({ get: (name) => blobs.get(name) }) ?? await this.buildInMemory(schema);
    const dictionary = new CatalogDictionary(state, { brands, categories, tagsInNameOrder: tags });
    const sql = foodReads(dialect);
    const version: Version = {
      state,
      dialect,
      sql,
      dictionary,
      closure,
      engine: new SearchEngine(index, this.synonyms),
      names: {
        brands: brands.map((r) => ({ rid: r.rid, name: r.name_key })),
        categories: categories.map((r) => ({ rid: r.rid, name: r.name_key })),
        tags: tags.map((r) => ({ rid: r.rid, name: r.name_key })),
      },
      records: new Map(),
      rows: new FoodRowReader(new FoodRowCache(FOOD_ROWS_CACHED), (rids) => this.readRows(version, rids)),
      lookups: new Map(),
      places: new Map(),
      lookupRids: 0,
      stopCopy: new AbortController(),
      brandGroups: { of: index.facts.brand, inNameOrder: Uint32Array.from(brands, (b) => b.rid), size: dictionary.limits.brand },
      ...(lastImportSeconds !== undefined ? { lastImportSeconds } : {}),
    };
    return version;
  }

  /** A version's search blobs, as the bytes stored (search-store.ts readSearchBlobs: COPY's binary format). */
  private readBlobs(schema: string): Promise<Map<string, Uint8Array>> {
    return this.loadRead((client, readTimeoutMs) => readSearchBlobs(client, schema, readTimeoutMs));
  }

  /** Search data written by another format of the engine: built in memory from the version's rows, as SQLite does read-only. */
  private async buildInMemory(schema: string): Promise<SearchIndex> {
    const source = await this.loadRead((client, readTimeoutMs) => readSearchSource(client, schema, readTimeoutMs));
    const memory = new MemoryBlobs();
    buildSearchData(source, memory, PG_BUILD);
    return SearchIndex.load(memory)!;
  }

  /**
   * A read of a version's load, in a read-only transaction under the load's bound
   * (LOAD_TIMEOUT_MS, server and client side), not a request's: at 1,000,000 foods on a loaded
   * machine it can take longer than a request may wait, and no request waits for it.
   */
  private async loadRead<T>(read: (client: pg.PoolClient, readTimeoutMs: number) => Promise<T>): Promise<T> {
    const client = await this.pool.connect().catch((error: unknown) => {
      throw unavailableOr(error, this.url);
    });
    let failure: Error | undefined;
    try {
      await client.query('BEGIN READ ONLY');
      await client.query(`SET LOCAL statement_timeout = ${LOAD_TIMEOUT_MS}`);
      const result = await read(client, LOAD_TIMEOUT_MS + 500);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
      throw unavailableOr(error, this.url);
    } finally {
      // A connection left in a failed transaction, or by a read its bound gave up on, is not reused.
      client.release(failure);
    }
  }

  async state(): Promise<CatalogState> {
    return (await this.ready()).state;
  }

  async warm(): Promise<void> {
    await this.ready();
  }

  /** Once the server listens, in turns: the search engine's commonest lists and bound orders, then searches of its own, so that V8 compiles the search code first (warm-searches.ts). */
  listening(): void {
    this.warmUp ??= new SearchWarmUp(this, {
      sampleNames: (count) => this.sampleNames(count),
      isOpen: () => !this.closed,
      engine: async () => (await this.ready()).engine,
    }, () => this.logger);
  }

  /** Up to `count` food names of the loaded version, one every so many rids. */
  private async sampleNames(count: number): Promise<string[]> {
    const v = await this.ready();
    const rids = spreadRids(v.engine.index.place.length - 1, count);
    const rows = await this.query<{ name: string }>(`SELECT name FROM ${v.dialect.table('foods')} WHERE rid = ANY($1::int[]) ORDER BY rid`, [rids]);
    return rows.map((row) => row.name);
  }

  /** A round trip to PostgreSQL (rejects while it is away); the counts are the loaded version's. */
  async health(): Promise<CatalogHealth> {
    const v = await this.ready();
    await this.query('SELECT 1');
    return {
      ...v.state,
      foods: v.engine.index.meta.foods,
      ...(v.lastImportSeconds !== undefined ? { lastImportSeconds: v.lastImportSeconds } : {}),
      ...(v.localRows !== undefined ? { localRows: v.localRows } : {}),
      ...(this.warmUp !== undefined ? { searchWarmUp: this.warmUp.state } : {}),
    };
  }

  /** A food's row by foodId or current revisionId (the foodId first, as SQLite's store). */
  private async foodRow(idOrRevision: string): Promise<{ row: FoodRow; v: Version } | undefined> {
    if (!isUuid(idOrRevision)) return undefined;
    const id = normaliseId(idOrRevision);
    const v = await this.ready();
    const cached = v.rows.cache.byId(id);
    if (cached !== undefined) return { row: cached, v };
    const [row] = await this.prepared<FoodRow & { rid: number }>(v.sql.rowById, [id]);
    if (row === undefined) return undefined;
    v.rows.cache.put(row.rid, row, true);
    return { row, v };
  }

  async food(idOrRevision: string): Promise<Stamped<Food> | undefined> {
    const found = await this.foodRow(idOrRevision);
    return found && { value: foodRowToFood(found.row, found.v.dictionary), lastModified: found.row.updated_at };
  }

  async foodJson(idOrRevision: string): Promise<Stamped<{ revisionId: string; json: string }> | undefined> {
    const found = await this.foodRow(idOrRevision);
    return found && {
      value: { revisionId: found.row.revision_id, json: foodRowToJson(found.row, found.v.dictionary) }, lastModified: found.row.updated_at,
    };
  }

  async brand(id: string): Promise<Stamped<Brand> | undefined> {
    return (await this.ready()).dictionary.stampedBrand(normaliseId(id));
  }

  async category(id: string): Promise<Stamped<Category> | undefined> {
    return (await this.ready()).dictionary.stampedCategory(normaliseId(id));
  }

  async tag(id: string): Promise<Stamped<Tag> | undefined> {
    const tag = (await this.ready()).dictionary.tagsById.get(normaliseId(id));
    return tag ? { value: tag.value, lastModified: tag.lastModified } : undefined;
  }

  /** Food rids a lookup of the version's tables gives, held for the next request that asks the same. */
  private async lookup(v: Version, key: string, sql: string, values: readonly string[]): Promise<Uint32Array> {
    const cacheKey = `${key}:${JSON.stringify(values)}`;
    const held = v.lookups.get(cacheKey);
    if (held !== undefined) return held;
    return remember(v, cacheKey, Uint32Array.from(await this.query<{ rid: number }>(sql, [values]), (r) => r.rid));
  }

  /**
   * The foods carrying one of these barcode keys, held like the other lookups. Their rows come in
   * the same round trip and go to the version's row cache: a barcode scan's page, nearly always
   * these few foods, then needs no second one.
   */
  private async barcodeFoods(v: Version, keys: readonly string[]): Promise<Uint32Array> {
    const cacheKey = `upc:${JSON.stringify(keys)}`;
    const held = v.lookups.get(cacheKey);
    if (held !== undefined) return held;
    const rows = (await this.textRows(v.sql.rowsByUpc, [textArrayLiteral(keys)])).map(foodRowOf);
    for (const row of rows) v.rows.cache.put(row.rid, row);
    return remember(v, cacheKey, Uint32Array.from(rows, (row) => row.rid));
  }

  /**
   * The places in name order where the run of names starting with `key` begins and ends: from
   * the version's names in memory (search/name-keys.ts), or, for search data written without
   * them (an earlier release's import), read once per version and key.
   */
  private async prefixPlaces(v: Version, key: string): Promise<ReadonlyMap<string, number>> {
    const end = key + MAX_CHAR;
    const names = v.engine.index.nameKeys();
    if (names !== undefined) return new Map([[key, names.firstPlaceFrom(key)], [end, names.firstPlaceFrom(end)]]);
    const [held, heldEnd] = [v.places.get(key), v.places.get(end)];
    if (held !== undefined && heldEnd !== undefined) return new Map([[key, held], [end, heldEnd]]);
    // No name holds a NUL (PostgreSQL's text cannot): the first name >= `a\0…` is the first > `a`.
    const from = (k: string): { op: '>' | '>='; key: string } => (k.includes('\0') ? { op: '>', key: k.slice(0, k.indexOf('\0')) } : { op: '>=', key: k });
    const [lo, hi] = [from(key), from(end)];
    const [row] = await this.prepared<{ a: number | null; b: number | null }>(v.sql.firstFrom(lo.op, hi.op), [lo.key, hi.key]);
    const place = (rid: number | null | undefined): number => (rid === null || rid === undefined ? v.engine.index.meta.foods : v.engine.index.place[rid]!);
    if (v.places.size >= PLACES_CACHED) v.places.clear();
    v.places.set(key, place(row?.a));
    v.places.set(end, place(row?.b));
    return new Map([[key, v.places.get(key)!], [end, v.places.get(end)!]]);
  }

  /**
   * What the engine asks the store while it searches (synchronously): read before it is asked,
   * for this query only: the foods of its classifications and barcodes, and the places in name
   * order where its prefix's run begins and ends.
   */
  private async lookups(v: Version, q: FoodFilters & { readonly match?: TextMatch }): Promise<StoreLookups> {
    const t = (name: string): string => v.dialect.table(name);
    const classifications = q.classifications
      ? await this.lookup(v, 'classification', `SELECT rid FROM ${t('foods')} WHERE classification_key = ANY($1::text[])`,
        q.classifications.values.map((c) => c.toLowerCase()).filter((c) => !c.includes('\0')))
      : new Uint32Array(0);
    const upcs = q.upcs ? await this.barcodeFoods(v, q.upcs) : new Uint32Array(0);
    const places = q.match?.type === 'prefix' ? await this.prefixPlaces(v, fold(q.match.query)) : new Map<string, number>();
    const { dictionary, closure } = v;
    return {
      brandRid: (id) => dictionary.brandRid(id),
      tagRid: (id) => dictionary.tagRid(id),
      limits: dictionary.limits,
      categoriesUnder: (ids) => ids.flatMap((id) => closure.get(id) ?? []),
      classificationFoods: () => classifications,
      upcFoods: () => upcs,
      firstPlaceFrom: (key) => {
        const place = places.get(key);
        if (place === undefined) throw new Error(`the place of '${key}' in name order was not read before the search`);
        return place;
      },
    };
  }

  /** The page's rows in order, with the dictionary of the version they were read in. */
  private async foodPage(q: FoodQuery): Promise<FoodRowsPage> {
    const v = await this.ready();
    // A barcode lookup without a query names a handful of foods through its index: they are
    // filtered and ordered in memory (or, grouped, by the general query, which starts from them)
    // rather than by the engine's walk of every name.
    const barcodes = q.upcs !== undefined && !q.match;
    const lookups = barcodes && q.grouping ? undefined : await this.lookups(v, q);
    const listed = barcodes && lookups !== undefined
      ? listedInNameOrder(q, lookups.upcFoods(q.upcs), v.engine.index.place, v.engine.test({ ...q, upcs: undefined }, lookups))
      : undefined;
    const answer = listed !== undefined || lookups === undefined ? undefined : v.engine.foods(q, lookups);
    const corrections = answer?.corrections ?? [];
    let page: { rids: readonly number[]; total: number };
    if (listed !== undefined) page = listed;
    else if (answer !== undefined && !('ranked' in answer)) page = answer;
    else if (lookups !== undefined && q.grouping !== undefined) {
      page = await this.groupedInMemory(v, { ...q, grouping: q.grouping }, lookups, answer?.ranked);
    } else {
      page = await this.generalPage(v, q, answer?.ranked);
    }
    return {
      dictionary: v.dictionary, total: page.total, rows: await this.pageRows(v, page.rids), corrections,
      linked: { rids: page.rids, facts: v.engine.index.facts },
    };
  }

  /**
   * A page's rows in order: those the version's row cache holds, the others from the version's
   * copy on this replica's disk when there is one (kept in the cache: a repeated search's rows
   * then cost a Map lookup, not a read and a decoding), else from PostgreSQL.
   */
  private pageRows(v: Version, rids: readonly number[]): Promise<FoodRow[]> {
    const file = v.rowFile;
    if (file === undefined) return v.rows.rows(rids);
    const { cache } = v.rows;
    const rows: FoodRow[] = [];
    try {
      for (const rid of rids) {
        let row = cache.get(rid);
        if (row === undefined) {
          row = file.row(rid);
          if (row === undefined) return v.rows.rows(rids);
          cache.put(rid, row);
        }
        rows.push(row);
      }
    } catch (error) {
      // The disk failed: the version's rows come from PostgreSQL from now on (/readyz says so).
      this.log('warn', { version: v.state.version, err: errorText(error) }, 'the copy of the rows on the local disk failed to read: pages come from PostgreSQL');
      file.close();
      v.rowFile = undefined;
      v.localRows = 'failed';
      return v.rows.rows(rids);
    }
    return Promise.resolve(rows);
  }

  /**
   * Copies a version's food rows to this replica's disk (row-file.ts), in the background: the
   * version answers from PostgreSQL meanwhile. A copy that fails is tried again later while the
   * version is the one answered; a copy that ends after the next version took over is dropped.
   */
  private copyRows(v: Version): void {
    const dir = this.options.rowCopyDir;
    if (dir === undefined || this.closed) return;
    v.localRows = 'copying';
    const copy = `COPY (SELECT ${ROW_FILE_COLUMNS} FROM ${v.dialect.table('foods')} f) TO STDOUT (FORMAT binary)`;
    const ridLimit = v.engine.index.place.length;
    const started = performance.now();
    this.loadRead((client, readTimeoutMs) => copyOutOf(client, copy, (stream) => RowFile.copy(stream, dir, ridLimit, v.stopCopy.signal), readTimeoutMs)).then(
      (file) => {
        if (this.version !== v || this.closed) return file.close();
        v.rowFile = file;
        v.localRows = 'ready';
        this.log('info', { version: v.state.version, mib: Math.round(file.bytes / 2 ** 20), ms: Math.round(performance.now() - started) },
          'rows copied to the local disk: pages are read from there');
      },
      (error: unknown) => {
        if (v.stopCopy.signal.aborted) return;
        v.localRows = 'failed';
        const retryInMs = rowCopyRetryMs();
        this.log('warn', { version: v.state.version, err: errorText(error), retryInMs }, 'rows not copied to the local disk: pages come from PostgreSQL meanwhile');
        setTimeout(() => {
          if (this.version === v && !this.closed) this.copyRows(v);
        }, retryInMs).unref();
      },
    );
  }

  /** A grouped list, from memory (grouping.ts). */
  private async groupedInMemory(v: Version, q: GroupedQuery, lookups: StoreLookups, ranked: readonly number[] | undefined): Promise<{ rids: number[]; total: number }> {
    const groups = q.grouping.by === 'brand' ? v.brandGroups : await this.classificationGroups(v);
    return groupedMatches(q, v.engine, lookups, groups, ranked);
  }

  /**
   * Each food's classification as a group number in (folded, raw) order, read once per version
   * (as soon as it is loaded): every food's rid and classification read a slice of rids at a
   * time (rows as arrays) and numbered as they pass (nothing but a rid array kept), the
   * distinct classifications then ordered by code point, the order of UTF-8 bytes (SQLite's
   * BINARY collation) whatever the database's. At 1,000,000 foods (324,423 classifications)
   * this is seconds of CPU beside the requests of the new version; comparing strings rather
   * than a Buffer made of each took 3.0 → 2.4 s. The same pass reads each row's address (its
   * ctid, row-addresses.ts), kept once every row's is known. The requests it runs beside wait
   * for no more than a slice or a turn of the sort (turns.ts `sortedInSteps`): read in slices of
   * 100,000 rids and sorted in one piece, it held requests up for ~0.2-1.1 s at a time in the
   * seconds after a switch (a slow VM).
   */
  private classificationGroups(v: Version): Promise<Groups> {
    v.classifications ??= (async () => {
      const ridLimit = v.engine.index.place.length;
      const numbering = new ClassificationNumbering(ridLimit);
      const addresses = new RowAddresses(ridLimit);
      let addressed = true;
      // In slices of rids: each read within a request's statement bound, little held at once.
      for (let from = 0; from < ridLimit; from += CLASSIFICATION_SLICE) {
        const rows = await this.query<[number, string, string, string]>(`SELECT rid, classification_fold, classification, ctid
          FROM ${v.dialect.table('foods')} WHERE rid >= $1 AND rid < $2`, [from, from + CLASSIFICATION_SLICE], { rowMode: 'array' });
        for (const [rid, fold, raw, ctid] of rows) {
          addressed &&= addresses.set(rid, ctid);
          numbering.add(rid, fold, raw);
        }
      }
      const groups = await inTurns(numbering.ordered(), () => !this.closed);
      if (groups === undefined) throw new Error('the store closed');
      if (addressed) v.addresses = addresses;
      return groups.value;
    })();
    v.classifications.catch(() => {
      v.classifications = undefined;
    });
    return v.classifications;
  }

  async foods(query: FoodQuery, options?: FoodsOptions): Promise<Page<FoodHit>> {
    // The rows are read whole (a page's rows come from one statement, or the copy in memory): only the body's parsing is spared.
    return foodHitsPage(query, await this.foodPage(query), options);
  }

  async foodsJson(query: FoodQuery): Promise<Page<string>> {
    return foodJsonPage(query, await this.foodPage(query));
  }

  /** The SQL plan: what the engine leaves to the store (grouping, deep ranked prefix pages, barcodes alone). */
  private async generalPage(v: Version, q: FoodQuery, ranked?: readonly number[]): Promise<{ rids: number[]; total: number }> {
    if (unmatchablePrefix(q.match)) return { rids: [], total: 0 };
    const built = lists.foodsQuery(v.dialect, q, () => ranked ?? []);
    const page = await this.run<{ rid: number; total?: number }>(built.page);
    // An empty first page is an empty result: counting it again would visit every match.
    const total = built.pageCarriesTotal && page.length > 0
      ? page[0]!.total!
      : page.length === 0 && q.offset === 0
        ? 0
        : await this.count(built);
    return { rids: page.map((r) => r.rid), total };
  }

  private async count(built: BuiltQuery): Promise<number> {
    const [row] = await this.run<{ count: number }>(built.count);
    return row!.count;
  }

  /** Records whose names match an fts query, by the engine, for the SQL to filter and page. */
  private matchedRecords(v: Version, kind: RecordKind, match: TextMatch | undefined): { rids: () => number[]; corrections: () => readonly Correction[] } {
    let found: { rids: number[]; corrections: readonly Correction[] } | undefined;
    const run = (): { rids: number[]; corrections: readonly Correction[] } => {
      if (found !== undefined) return found;
      if (match?.type !== 'fts') return (found = { rids: [], corrections: [] });
      let engine = v.records.get(kind);
      if (engine === undefined) v.records.set(kind, (engine = recordsEngine(v.names[kind], this.synonyms)));
      return (found = engine.matching(match.query));
    };
    return { rids: () => run().rids, corrections: () => (match?.type === 'fts' ? run().corrections : []) };
  }

  private async recordPage<R>(built: BuiltQuery, match: TextMatch | undefined): Promise<{ total: number; rows: R[] }> {
    if (unmatchablePrefix(match)) return { total: 0, rows: [] };
    const [rows, total] = await Promise.all([this.run<R>(built.page), this.count(built)]);
    return { total, rows };
  }

  /**
   * The rids of the records (brands, categories or tags) of the foods that pass filters most
   * foods pass, from memory: every food's records are in the search data, and such filters
   * are met by a record's first foods (the pass ends when every record was seen). In SQL
   * PostgreSQL joins the foods whole for them (~0.3 s at 1,000,000 foods). Undefined for
   * selective filters, which SQL answers through the indexes.
   */
  private async recordsOfFoods(v: Version, kind: RecordKind, filters: FoodFilters): Promise<number[] | undefined> {
    if (!lists.hasFoodFilter(filters) || !lists.broadFoodFilter(filters)) return undefined;
    const accept = v.engine.test(filters, await this.lookups(v, filters));
    const { facts } = v.engine.index;
    const limit = kind === 'brands' ? v.dictionary.limits.brand : kind === 'categories' ? v.dictionary.limits.category : v.dictionary.limits.tag;
    const seen = new Uint8Array(limit);
    const found: number[] = [];
    const records = v.names[kind].length;
    const mark = (rid: number): void => {
      if (seen[rid] === 0) {
        seen[rid] = 1;
        found.push(rid);
      }
    };
    for (let rid = 0; rid < facts.region.length && found.length < records; rid++) {
      // Region 0: no food has this rid.
      if (facts.region[rid] === 0 || (accept !== undefined && !accept(rid))) continue;
      if (kind === 'brands') mark(facts.brand[rid]!);
      else if (kind === 'categories') mark(facts.category[rid]!);
      else for (let i = facts.tagStart[rid]!; i < facts.tagStart[rid + 1]!; i++) mark(facts.tagRids[i]!);
    }
    return found;
  }

  async brands(query: BrandQuery): Promise<Page<Brand>> {
    const v = await this.ready();
    const matched = this.matchedRecords(v, 'brands', query.match);
    const ofFoods = await this.recordsOfFoods(v, 'brands', lists.brandFoodFilters(query));
    const { total, rows } = await this.recordPage<BrandRow>(lists.brandsQuery(v.dialect, query, matched.rids, ofFoods), query.match);
    return withCorrections({ total, items: rows.map(brandRowToBrand) }, matched.corrections());
  }

  async categories(query: CategoryQuery): Promise<Page<Category>> {
    const v = await this.ready();
    const matched = this.matchedRecords(v, 'categories', query.match);
    const ofFoods = await this.recordsOfFoods(v, 'categories', lists.categoryFoodFilters(query));
    const { total, rows } = await this.recordPage<CategoryRow>(lists.categoriesQuery(v.dialect, query, matched.rids, ofFoods), query.match);
    return withCorrections({ total, items: rows.map(categoryRowToCategory) }, matched.corrections());
  }

  async tags(query: TagQuery): Promise<Page<Tag>> {
    const v = await this.ready();
    const matched = this.matchedRecords(v, 'tags', query.match);
    const ofFoods = await this.recordsOfFoods(v, 'tags', lists.tagFoodFilters(query));
    const { total, rows } = await this.recordPage<TagRow>(lists.tagsQuery(v.dialect, query, matched.rids, ofFoods), query.match);
    return withCorrections({ total, items: rows.map(tagRowToTag) }, matched.corrections());
  }

  async searchFoodNames(words: readonly string[], limit: number): Promise<readonly NameSearchHit[]> {
    const v = await this.ready();
    const rows = await this.pageRows(v, v.engine.names(words, limit));
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      categoryId: row.category_id,
      categoryName: v.dictionary.category(row.category_id)?.name ?? '',
    }));
  }

  /** An import (writer.ts) on a connection of its own; this store switches to its version when it commits, as every replica does. */
  async beginImport(options: { readonly replace: boolean }): Promise<ImportTransaction> {
    const transaction = await beginPostgresImport(this.pool, options).catch((error: unknown) => {
      throw openingError(error, this.url);
    });
    return {
      put: (record) => transaction.put(record),
      check: () => transaction.check(),
      rollback: () => transaction.rollback(),
      commit: async () => {
        await transaction.commit();
        if (this.version !== undefined) await this.refresh().catch(() => undefined);
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.follower?.stop();
    if (this.version !== undefined) dropRowCopy(this.version);
    this.version = undefined;
    await endPool(this.pool);
  }
}
