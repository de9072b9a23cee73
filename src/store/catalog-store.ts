import type { Brand, Category, CatalogRecord, Food, SourceRef, Tag } from '../domain/records.js';
import type { Region } from '../domain/regions.js';
import type { FoodRow } from './food-row.js';
import type { FoodHead } from './record-rows.js';

/** Ids where each id may carry `!`: plain ids include, `!` ids exclude (contract C3). */
export interface IdFilter {
  readonly include: readonly string[];
  readonly exclude: readonly string[];
}

/** A list where a leading `!` inverts the whole list: `!A,B` = in neither A nor B. */
export interface ListFilter {
  readonly values: readonly string[];
  readonly inverted: boolean;
}

export type MatchType = 'fts' | 'prefix';
export type Direction = 'asc' | 'desc';

/** A non-blank query; blank queries never reach the store. */
export interface TextMatch {
  readonly query: string;
  readonly type: MatchType;
}

export interface Ordering {
  readonly field: 'rank' | 'name';
  readonly direction: Direction;
}

/** Filters that select foods; every present filter applies (AND). */
export interface FoodFilters {
  readonly region?: Region;
  readonly brands?: IdFilter;
  readonly tags?: IdFilter;
  /** Category ids; non-leaf ids stand for every leaf below them. */
  readonly categories?: ListFilter;
  /** Classification strings, compared case-insensitively (already trimmed). */
  readonly classifications?: ListFilter;
  /**
   * Barcode lookup keys (domain/barcodes.ts barcodeKeys: 14-digit GTINs): foods carrying a
   * barcode with any of these keys. A store indexes each food's keys (foodBarcodeKeys of its
   * `upcs`) so this is a lookup, not a scan. An empty list matches no food.
   */
  readonly upcs?: readonly string[];
}

export interface Paging {
  readonly limit: number;
  readonly offset: number;
}

export interface FoodQuery extends FoodFilters, Paging {
  readonly match?: TextMatch;
  readonly order: Ordering;
  readonly grouping?: {
    readonly by: 'brand' | 'classification';
    readonly order: Ordering;
    /** Keep the first N foods of each group. */
    readonly limit?: number;
  };
}

export interface BrandQuery extends Paging {
  readonly match?: TextMatch;
  readonly region?: Region;
  readonly direction: Direction;
  readonly classifications?: ListFilter;
  readonly categories?: ListFilter;
  readonly tags?: IdFilter;
}

export interface CategoryQuery extends Paging {
  readonly match?: TextMatch;
  readonly region?: Region;
  readonly direction: Direction;
  readonly classifications?: ListFilter;
  readonly brands?: ListFilter;
  readonly tags?: IdFilter;
  readonly parents?: ListFilter;
  readonly isLeaf?: boolean;
}

export interface TagQuery extends Paging {
  readonly match?: TextMatch;
  readonly direction: Direction;
  readonly classifications?: ListFilter;
  readonly categories?: ListFilter;
  readonly brands?: ListFilter;
}

/** A query word the search corrected (contract C3 Typos), and the words it matched instead. */
export interface Correction {
  readonly word: string;
  readonly as: readonly string[];
}

export interface Page<T> {
  /** Count of all matching results (after grouping-limit for grouped foods). */
  readonly total: number;
  readonly items: readonly T[];
  /** Present when fts words were corrected: the response's `metadata.corrections`. */
  readonly corrections?: readonly Correction[];
}

export interface FoodsOptions {
  readonly body: boolean;
}

export interface FoodHit {
  /** Without its body's members when the page was asked for with `{ body: false }`. */
  readonly food: Food | FoodHead;
  /** Present only when the query asked for grouping. */
  readonly grouping?: { readonly name: string; readonly id?: string };
}

/** A record with the time (ms since epoch) it last changed, for Last-Modified. */
export interface Stamped<T> {
  readonly value: T;
  readonly lastModified: number;
}

export interface CatalogState {
  /** Increases with every import that changed something. */
  readonly version: number;
  /** When the catalogue last changed (ms since epoch). */
  readonly lastModified: number;
}

/** Minimal logger surface (Fastify's/pino's logger fits it); messages never carry a secret. */
export interface StoreLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** What a store reports of itself for readiness and metrics (GET /readyz, /metrics). */
export interface CatalogHealth extends CatalogState {
  /** Foods in the catalogue. */
  readonly foods: number;
  /** How long the import that last wrote the catalogue took, in seconds; undefined when unknown. */
  readonly lastImportSeconds?: number;
  /**
   * Where the copy of the catalogue's rows on this replica's disk stands (PostgreSQL with a row
   * copy folder): `copying` (pages come from PostgreSQL meanwhile), `ready`, or `failed` (a copy
   * that failed is made again later; after a read of the copy failed, pages come from
   * PostgreSQL until the next catalogue version); absent when the store makes none.
   */
  readonly localRows?: 'copying' | 'ready' | 'failed';
  /**
   * SQLite read through its memory map: whether the pages searches read at random have been read
   * once since the process listened (src/store/sqlite/page-map.ts): `reading`, then `read`; `by
   * use` when they are left to be mapped as requests read them (the file is past the map or
   * more than half the available memory). Absent otherwise.
   */
  readonly filePages?: 'reading' | 'read' | 'by use';
  /**
   * Whether the process has loaded its search engine's commonest lists, made its bound orders and
   * answered searches of its own catalogue since it listened, so that V8 compiled the search code
   * before requests need it (src/store/warm-searches.ts): `searching`, then `done`; `off` (FOODLOOKUP_WARM_SEARCHES=0)
   * or `stopped` (the store closed, or a search failed). Absent before the server listens.
   */
  readonly searchWarmUp?: 'searching' | 'done' | 'off' | 'stopped';
}

/** A food found by the SOAP foodSearch: best first. */
export interface NameSearchHit {
  readonly id: string;
  readonly name: string;
  readonly categoryId: string;
  readonly categoryName: string;
}

/** Read side of the catalogue, used by both interfaces. */
export interface CatalogReader {
  /** Version and last change of the whole catalogue. */
  state(): Promise<CatalogState>;
  /**
   * Loads what the first requests would otherwise wait for (lookup tables, search data), so a
   * server pays it before it listens.
   */
  warm(): Promise<void>;
  /** Where a store reports what it does in the background (a PostgreSQL replica's copy of the rows); set once the app's logger exists. */
  useLogger?(logger: StoreLogger): void;
  /**
   * Work a store does in the background once the server listens: the search engine's bound
   * orders, then searches of its own (warm-searches.ts); SQLite reads its file's pages ahead
   * meanwhile, before the searches (page-map.ts).
   */
  listening?(): void;
  /**
   * A real round trip to the store (GET /readyz: ready when it answers; /metrics): rejects, or
   * never settles, when the store cannot answer; the caller bounds the wait. Cheap enough to be
   * called every few seconds: counts may be kept per catalogue version.
   */
  health(): Promise<CatalogHealth>;
  /** A food by its foodId or by its current revisionId (case-insensitive). */
  food(idOrRevision: string): Promise<Stamped<Food> | undefined>;
  /**
   * The same food already serialised as its API JSON (service.md 2.1 member order), for whole
   * responses: a store can assemble it from stored fragments without building the object.
   */
  foodJson(idOrRevision: string): Promise<Stamped<{ readonly revisionId: string; readonly json: string }> | undefined>;
  brand(id: string): Promise<Stamped<Brand> | undefined>;
  category(id: string): Promise<Stamped<Category> | undefined>;
  tag(id: string): Promise<Stamped<Tag> | undefined>;
  /** `body: false` when no member of the food's body (FOOD_BODY_MEMBERS) is wanted: they are then neither read nor parsed. */
  foods(query: FoodQuery, options?: FoodsOptions): Promise<Page<FoodHit>>;
  /**
   * The same page with each food (and its `grouping`, when grouped) already serialised as the
   * API's JSON, byte for byte what JSON.stringify of `foods()`'s items gives: for responses
   * without a `fields` selector, the most frequent kind.
   */
  foodsJson(query: FoodQuery): Promise<Page<string>>;
  brands(query: BrandQuery): Promise<Page<Brand>>;
  categories(query: CategoryQuery): Promise<Page<Category>>;
  tags(query: TagQuery): Promise<Page<Tag>>;
  /**
   * Foods whose name contains every word (whole words, folded), most relevant first;
   * at most `limit`. Used by SOAP foodSearch (contract C6).
   */
  searchFoodNames(words: readonly string[], limit: number): Promise<readonly NameSearchHit[]>;
}

export type PutOutcome = 'added' | 'changed' | 'unchanged';

/** Raised by an import transaction when a record breaks a rule that needs the database. */
export class RecordRejected extends Error {}

/**
 * The connection was lost while the import committed: the database may have committed it or
 * not, and cannot be asked on that connection. Importing the same files again settles it (it
 * changes nothing when the first one committed).
 */
export class ImportOutcomeUnknown extends Error {}

/**
 * What an import puts: a checked record, or a food as the row prepared from it (foodRow), which
 * the store writes exactly as it would the food: an import worker sends rows, not foods.
 */
export type ImportRecord =
  | Exclude<CatalogRecord, { kind: 'invalid' | 'skipped' }>
  | { readonly kind: 'food-row'; readonly row: FoodRow; readonly source: SourceRef };

/** One import, one transaction (contract C4). */
export interface ImportTransaction {
  /** Upserts one record by id; throws RecordRejected when it breaks a reference rule. */
  put(record: ImportRecord): Promise<PutOutcome>;
  /**
   * Checks the rules that need the whole catalogue (parents exist, no cycles, foods only in
   * leaves, regions agree). Returns one message per problem; empty when all hold.
   */
  check(): Promise<readonly string[]>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

export interface CatalogWriter {
  /** Starts an import; `replace` empties the catalogue inside the same transaction. */
  beginImport(options: { readonly replace: boolean }): Promise<ImportTransaction>;
}

export interface CatalogStore extends CatalogReader, CatalogWriter {
  close(): Promise<void>;
}
