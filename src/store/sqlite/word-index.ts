import type { Database, Statement } from 'better-sqlite3';
import type { FoodFilters } from '../catalog-store.js';
import { foodTest, type RecordRids } from './food-filters.js';
import { ANYWHERE, COMPLETE_KEY, NO_PLACE, PostingsCache, readFoodFacts, type FoodFacts, type PostingList, type WordPostings } from './postings.js';
import type { NamePlaces, PrefixRun } from './name-order.js';
import { prepareForEarlyTop } from './early-top.js';
import type { WordIndex } from './ranked-search.js';
import type { FoodTest } from './word-search.js';

/**
 * Postings held per serving process, at most: the most used words stay, the rest are read
 * again when asked for (one indexed read of their blobs, ~0.1 ms for a common word). At
 * 1,000,000 generated foods every word's postings together are ~55 MB.
 */
export const POSTINGS_CACHE_BYTES = 32 * 1024 * 1024;

/** The importer's postings and food facts of one catalogue version, read as searches need them. */
export class SqliteWordIndex implements WordIndex, PrefixRun {
  private readonly cache: PostingsCache;
  private loadedFacts: FoodFacts | undefined;
  private loadedNames: NamePlaces | undefined;
  private readonly firstFrom: Statement<[string], number>;

  constructor(private readonly db: Database, private readonly rids: RecordRids) {
    this.cache = new PostingsCache(db, POSTINGS_CACHE_BYTES);
    this.firstFrom = db.prepare<[string], number>('SELECT rid FROM foods WHERE name_key >= ? ORDER BY name_key, id LIMIT 1').pluck();
  }

  /** Whether the database has postings of every word: an import of this version wrote them. */
  static available(db: Database): boolean {
    const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'word_postings'").get() !== undefined;
    return hasTable && db.prepare('SELECT 1 FROM search_blobs WHERE key = ?').get(COMPLETE_KEY) !== undefined;
  }

  private facts(): FoodFacts {
    this.loadedFacts ??= readFoodFacts(this.db);
    if (this.loadedFacts === undefined) throw new Error('the search data has postings but no food facts: re-import to rebuild it');
    return this.loadedFacts;
  }

  /**
   * Reads the food facts and builds the name places now rather than at the first search, and
   * the postings of the commonest words, up to half the cache, ready for early termination:
   * nearly every multi-word search has one (at 1,000,000 foods, 'and' alone is 600,000
   * postings, ~40 ms to read and prepare).
   */
  load(): void {
    this.names();
    const common = this.db.prepare('SELECT term FROM ranked_terms ORDER BY matches DESC').pluck().iterate() as IterableIterator<string>;
    for (const word of common) {
      if (this.cache.heldBytes >= POSTINGS_CACHE_BYTES / 2) break;
      const postings = this.cache.get(word, ANYWHERE);
      if (postings !== undefined) prepareForEarlyTop(postings, this.place.length);
    }
  }

  postings(word: string, list: PostingList): WordPostings | undefined {
    return this.cache.get(word, list);
  }

  get place(): Uint32Array {
    return this.facts().place;
  }

  get brandFacts(): { brand: ArrayLike<number>; brandLimit: number } {
    return { brand: this.facts().brand, brandLimit: this.rids.limits.brand };
  }

  test(filters: FoodFilters): FoodTest | 'sql' {
    return foodTest(filters, this.facts(), this.rids);
  }

  firstPlaceFrom(key: string): number {
    const rid = this.firstFrom.get(key);
    return rid === undefined ? (this.names()?.byPlace.length ?? 0) : this.facts().place[rid]!;
  }

  /** Undefined on a database written before name lengths were stored: prefixes take the general query. */
  names(): NamePlaces | undefined {
    const { place, nameLength } = this.facts();
    if (nameLength === undefined) return undefined;
    if (this.loadedNames === undefined) {
      const byPlace = new Uint32Array(nameLength.length);
      for (let rid = 0; rid < place.length; rid++) if (place[rid] !== NO_PLACE) byPlace[place[rid]!] = rid;
      let maxLength = 0;
      for (const length of nameLength) if (length > maxLength) maxLength = length;
      this.loadedNames = { byPlace, nameLength, maxLength };
    }
    return this.loadedNames;
  }
}
