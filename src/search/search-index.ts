import { readIds, readJson, readUint32, type Ids, type SearchBlobs } from './blobs.js';
import { NO_PLACE } from './build.js';
import { NameKeys } from './name-keys.js';
import type { NamePlaces } from './name-order.js';
import { decodeGroupPostings, decodeSlotPostings, postingsBytes, type GroupPostings, type SlotPostings } from './postings.js';
import { RANKING_VERSION } from './ranking.js';
import { SEARCH_DATA_FORMAT, type SearchMeta } from './search-meta.js';
import { MAX_TOP_PREFIX, prefixRestKey, prefixUnionKey, readTopList, staticParts, topKey, type TopList } from './top-lists.js';
import { Vocabulary } from './vocabulary.js';
import type { FoodRanks } from './word-search.js';

/**
 * What the searches need to know of every food, indexed by rid: its place in name order, and
 * the records the filters test (region, brand, category, tags).
 */
export interface FoodFacts {
  /** Place in (name, id) order; NO_PLACE for a rid with no food. */
  readonly place: Uint32Array;
  /** The folded name's length in code points, by place. */
  readonly nameLength: Ids;
  /** Region code: index in REGIONS + 1; 0 for a rid with no food. */
  readonly region: Uint8Array;
  readonly brand: Ids;
  readonly category: Ids;
  /** The tags of food `rid` are `tagRids[tagStart[rid] … tagStart[rid + 1])`. */
  readonly tagStart: Uint32Array;
  readonly tagRids: Ids;
}

/**
 * A cache of lists, the least recently used dropped past `maxBytes`: a word's stored postings
 * and the lists made at query time (a prefix's completions, a typo's corrections, synonyms)
 * share one budget, so whichever a server's traffic asks for again stays. A key names one kind
 * of list (`postingsKey`, `madeKey`), so a key's loader always makes the same type.
 */
export class ListCache {
  private readonly held = new Map<string, { readonly value: object; readonly bytes: number }>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get<T extends SlotPostings>(key: string, load: () => T | undefined): T | undefined {
    return this.keep(key, load, postingsBytes);
  }

  /** The same for anything else made from the search data, `bytes` its size (store/grouping.ts: groups' members). */
  keep<T extends object>(key: string, load: () => T | undefined, bytes: (value: T) => number): T | undefined {
    const found = this.held.get(key);
    if (found !== undefined) {
      this.held.delete(key);
      this.held.set(key, found);
      return found.value as T;
    }
    const value = load();
    if (value === undefined) return undefined;
    const size = bytes(value);
    this.held.set(key, { value, bytes: size });
    this.bytes += size;
    for (const [k, v] of this.held) {
      if (this.bytes <= this.maxBytes || k === key) break;
      this.held.delete(k);
      this.bytes -= v.bytes;
    }
    return value;
  }

  get heldBytes(): number {
    return this.bytes;
  }
}

/** The cache key of a word's stored postings (group numbers) and of a list made at query time. */
const postingsKey = (group: number): string => `p${group}`;
const madeKey = (key: string): string => `m${key}`;

/**
 * Lists held per serving process, at most: the words and the made lists a server's traffic uses
 * stay, the rest are read or made again when asked for (one blob read, ~0.1 ms for a common
 * word; a prefix's completions merged, up to a few ms). One budget for both, so whichever the
 * traffic asks for again stays. A dropped list costs its reload (a wide prefix's rest is a blob
 * of 0.5-3 MB, read into new memory that faults in page by page) and, until V8's next full
 * collection, its memory: V8 counts ArrayBuffers allocated since then against the old
 * generation's limit, so the churn also paces the full collections of the whole heap. Freeing
 * dropped lists at once cut the collections alone and gained nothing (8a6add9, reverted): the
 * reloads are what cost. Type-ahead after words' 7,437 queries load ~2,700 lists, more than any
 * budget here holds. At 1,000,000 foods (a server each, alternated), 96-100 MiB against 80
 * answered it 5-14 % more searches a second at 64 connections and cut its c=1 p99 from 4.0-4.5
 * to 3.4-3.6 ms. What bounds the budget is a worker's private memory (limit 250 MiB): in whole
 * bench runs its peak was 226 MiB with 80, 242 and 250 with 96, 234 and 242 with 88 (each run moves
 * it by ±5-8 MiB). Earlier budgets and figures: this file's history.
 */
export const LIST_CACHE_BYTES = 88 * 1024 * 1024;

/** The search data of one catalogue version, loaded from its blobs (postings as searches ask). */
export class SearchIndex implements FoodRanks {
  readonly place: Uint32Array;
  readonly shape: Uint32Array;
  readonly staticPart: Int16Array;
  readonly facts: FoodFacts;
  private readonly lists = new ListCache(LIST_CACHE_BYTES);
  private loadedNames: NamePlaces | undefined;
  private loadedKeys: NameKeys | null | undefined;

  private constructor(readonly meta: SearchMeta, readonly vocabulary: Vocabulary, private readonly blobs: SearchBlobs, facts: FoodFacts, shape: Uint32Array, servings: Uint8Array, marks: Uint8Array) {
    this.facts = facts;
    this.place = facts.place;
    this.shape = shape;
    this.staticPart = staticParts(servings, marks);
  }

  /** Whether the blobs hold search data this program reads (its format and ranking). */
  static current(blobs: SearchBlobs): boolean {
    const meta = blobs.get('meta');
    if (meta === undefined) return false;
    const m = readJson<SearchMeta>(meta);
    return m.format === SEARCH_DATA_FORMAT && m.ranking === RANKING_VERSION;
  }

  /** The index, or undefined when the blobs hold no search data of this program's format. */
  static load(blobs: SearchBlobs): SearchIndex | undefined {
    if (!SearchIndex.current(blobs)) return undefined;
    const meta = readJson<SearchMeta>(blobs.get('meta')!);
    const vocabulary = Vocabulary.load(blobs);
    const get = (name: string): Uint8Array => {
      const bytes = blobs.get(`foods/${name}`);
      if (bytes === undefined) throw new Error(`the search data lacks foods/${name}: import again to rebuild it`);
      return bytes;
    };
    if (vocabulary === undefined) throw new Error('the search data lacks its vocabulary: import again to rebuild it');
    const place = readUint32(get('place'));
    const tagStart = readUint32(get('tag-start'));
    const facts: FoodFacts = {
      place,
      nameLength: readIds(get('name-length'), meta.foods),
      region: new Uint8Array(get('region')),
      brand: readIds(get('brand'), place.length),
      category: readIds(get('category'), place.length),
      tagStart,
      tagRids: readIds(get('tag-rids'), tagStart[tagStart.length - 1] ?? 0),
    };
    return new SearchIndex(meta, vocabulary, blobs, facts, readUint32(get('shape')), new Uint8Array(get('servings')), new Uint8Array(get('marks')));
  }

  /** A group's stored postings. */
  postings(group: number): GroupPostings | undefined {
    return this.lists.get(postingsKey(group), () => {
      const bytes = this.blobs.get(`postings/${group}`);
      return bytes === undefined ? undefined : decodeGroupPostings(bytes);
    });
  }

  /** The stored first page of a group or a prefix alone, when it has one. */
  top(kind: 'group' | 'prefix', what: number | string): TopList | undefined {
    const bytes = this.blobs.get(topKey(kind, what));
    return bytes === undefined ? undefined : readTopList(bytes);
  }

  /** A wide type-ahead prefix's rare choices as one list, when the import stored it (top-lists.ts); kept with the lists made at query time. */
  prefixRest(prefix: string): SlotPostings | undefined {
    if (prefix.length > MAX_TOP_PREFIX) return undefined;
    return this.lists.get(madeKey(`stored ${prefix}`), () => {
      const bytes = this.blobs.get(prefixRestKey(prefix));
      return bytes === undefined ? undefined : decodeSlotPostings(bytes);
    });
  }

  /** Foods in name order (built on first use). */
  names(): NamePlaces {
    if (this.loadedNames === undefined) {
      const { place, nameLength } = this.facts;
      const byPlace = new Uint32Array(nameLength.length);
      for (let rid = 0; rid < place.length; rid++) if (place[rid] !== NO_PLACE) byPlace[place[rid]!] = rid;
      let maxLength = 0;
      for (const length of nameLength) if (length > maxLength) maxLength = length;
      this.loadedNames = { byPlace, nameLength, maxLength };
    }
    return this.loadedNames;
  }

  /** Every food's folded name in name order, when the import stored them (name-keys.ts; PostgreSQL's). */
  nameKeys(): NameKeys | undefined {
    if (this.loadedKeys === undefined) this.loadedKeys = NameKeys.load(this.blobs) ?? null;
    return this.loadedKeys ?? undefined;
  }

  /** A mid-sized type-ahead prefix's list, when the import stored it (top-lists.ts `prefixUnionKey`); not cached here. */
  prefixUnion(prefix: string): SlotPostings | undefined {
    if (prefix.length > MAX_TOP_PREFIX) return undefined;
    const bytes = this.blobs.get(prefixUnionKey(prefix));
    return bytes === undefined ? undefined : decodeSlotPostings(bytes);
  }

  /**
   * Something else made from this version's data at query time, kept in the lists' budget so that
   * it counts against the same memory: each kind of groups' members (store/grouping.ts).
   */
  kept<T extends object>(key: string, make: () => T, bytes: (value: T) => number): T {
    return this.lists.keep(`k${key}`, make, bytes)!;
  }

  /** A list made at query time for `key` (a slot's key), kept in the same cache as the postings. */
  madeList(key: string, make: () => SlotPostings): SlotPostings {
    return this.lists.get(madeKey(key), make)!;
  }

  get listsHeld(): number {
    return this.lists.heldBytes;
  }
}
