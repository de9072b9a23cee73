import type { Database } from 'better-sqlite3';
import { envInteger } from '../../config.js';
import { REGIONS } from '../../domain/regions.js';
import {
  ANYWHERE, COMPLETE_KEY, IN_NAME, NO_PLACE, bytes, narrowIds, type PostingList, type WordPostings,
} from './postings.js';
import { TopFoods } from './word-search.js';
import { forEachListed } from './listed-integers.js';
import { ANYWHERE_WEIGHTS, Bm25Parts, FOODS_FTS_COLUMNS, IN_NAME_WEIGHTS } from './bm25-parts.js';

/**
 * The search data every import rewrites inside its transaction, from the foods and their
 * FTS5 index: every change of any food moves bm25's statistics, so it is all or nothing.
 *
 * - Postings of every word, two lists each (postings.ts): the foods having it anywhere, with
 *   the word's bm25 part and name bit, and the foods having it in the name, with the part of
 *   a name-only search. Searches without `*` never touch FTS5 again.
 * - For every word in at least `topMinMatches()` foods, the first `TOP_DEPTH` foods of each
 *   list in full order, as one list of rids, and the match count (`ranked_top`, `ranked_terms`):
 *   a one-word search on a common word is then two rows read instead of a pass over ~10^5
 *   postings. (A row per food, as before schema 5, was ~1,000,000 inserts and ~1.5 s an import.)
 * - Facts of every food the in-memory searches need (postings.ts, FoodFacts): place in name
 *   order, name length by place (name-order.ts), region, brand, category, tags.
 */

/** Pages reaching past this depth take the general plan (ranked-search.ts). */
export const TOP_DEPTH = 1000;

/** Words matching fewer foods rank in well under a millisecond from their postings. */
export function topMinMatches(): number {
  return envInteger('FOODLOOKUP_RANKED_TOP_MIN', 1, 2000);
}

export const TOP_DDL = `
CREATE TABLE IF NOT EXISTS ranked_terms (
  term TEXT PRIMARY KEY,
  matches INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ranked_top (
  list INTEGER NOT NULL,
  term TEXT NOT NULL,
  rids BLOB NOT NULL,
  PRIMARY KEY (list, term)
) WITHOUT ROWID;
`;

/** Each food's place in (name_key, id) order and the records it refers to, indexed by rid; returns the places. */
function writeFoodFacts(db: Database, put: (key: string, value: ArrayBufferView) => void): Uint32Array {
  const maxRid = (db.prepare('SELECT max(rid) FROM foods').pluck().get() as number | null) ?? 0;
  const place = new Uint32Array(maxRid + 1).fill(NO_PLACE);
  const lengths: number[] = [];
  let longest = 0;
  let next = 0;
  for (const [rid, length] of db.prepare('SELECT rid, length(name_key) FROM foods ORDER BY name_key, id').raw().iterate() as IterableIterator<[number, number]>) {
    place[rid] = next++;
    lengths.push(length);
    if (length > longest) longest = length;
  }
  const nameLength = narrowIds(lengths.length, longest);
  nameLength.set(lengths);
  const limit = (table: string): number => ((db.prepare(`SELECT max(rid) FROM ${table}`).pluck().get() as number | null) ?? 0);
  // Each record's foods as one list read from the foods' own index (listed-integers.ts): a join
  // from every food to its brand and category took ~2 µs a food.
  const foodsByRecord = (records: string, links: string, foodRid: string, column: string, order = ''): [number, string | null][] =>
    db.prepare(`SELECT r.rid, (SELECT group_concat(l.${foodRid}) FROM ${links} l WHERE l.${column} = r.id) FROM ${records} r ${order}`)
      .raw().all() as [number, string | null][];
  const region = new Uint8Array(maxRid + 1);
  const regionFoods = db.prepare('SELECT group_concat(rid) FROM foods WHERE region = ?').pluck();
  REGIONS.forEach((name, i) => forEachListed(regionFoods.get(name) as string | null, (rid) => (region[rid] = i + 1)));
  const brand = narrowIds(maxRid + 1, limit('brands'));
  for (const [brandRid, foods] of foodsByRecord('brands', 'foods', 'rid', 'brand_id')) forEachListed(foods, (rid) => (brand[rid] = brandRid));
  const category = narrowIds(maxRid + 1, limit('categories'));
  for (const [categoryRid, foods] of foodsByRecord('categories', 'foods', 'rid', 'category_id')) {
    forEachListed(foods, (rid) => (category[rid] = categoryRid));
  }
  // Each food's tags in tag id order, as food_tags_food lists them: counted per food, then placed.
  const tagLists = foodsByRecord('tags', 'food_tags', 'food_rid', 'tag_id', 'ORDER BY r.id');
  const tagStart = new Uint32Array(maxRid + 2);
  for (const [, foods] of tagLists) forEachListed(foods, (rid) => tagStart[rid + 1]!++);
  for (let rid = 1; rid <= maxRid + 1; rid++) tagStart[rid]! += tagStart[rid - 1]!;
  const n = tagStart[maxRid + 1]!;
  const tagRids = narrowIds(n, limit('tags'));
  const filled = tagStart.slice(0, maxRid + 1);
  for (const [tagRid, foods] of tagLists) forEachListed(foods, (rid) => (tagRids[filled[rid]!++] = tagRid));
  put('place', place);
  put('name_length', nameLength);
  put('region', region);
  put('brand', brand);
  put('category', category);
  put('tag_start', tagStart);
  put('tag_rids', tagRids.subarray(0, n));
  return place;
}

/**
 * A word's postings from the index's instances of it (`doc`, column index), which come in rowid
 * order: each food's weighted count of the word, anywhere and in the name, then its parts.
 */
class WordCounts {
  rids = new Uint32Array(1024);
  /** Weighted count anywhere (ANYWHERE_WEIGHTS), the `f` of bm25. */
  anywhere = new Float64Array(1024);
  /** Count in the name. */
  inName = new Uint32Array(1024);
  length = 0;
  nameHits = 0;

  reset(): void {
    this.length = 0;
    this.nameHits = 0;
  }

  add(rid: number, column: number): void {
    let n = this.length;
    if (n > 0 && rid < this.rids[n - 1]!) throw new Error(`the search index listed food ${rid} after food ${this.rids[n - 1]}`);
    if (n === 0 || this.rids[n - 1] !== rid) {
      if (n === this.rids.length) this.grow();
      this.rids[n] = rid;
      this.anywhere[n] = 0;
      this.inName[n] = 0;
      this.length = ++n;
    }
    // Sums of whole weights: exact, so the order FTS5 adds them in does not matter.
    this.anywhere[n - 1]! += ANYWHERE_WEIGHTS[column]!;
    if (column === NAME_COLUMN && this.inName[n - 1]!++ === 0) this.nameHits++;
  }

  private grow(): void {
    const grown = <T extends Uint32Array | Float64Array>(array: T, make: (size: number) => T): T => {
      const bigger = make(array.length * 2);
      bigger.set(array);
      return bigger;
    };
    this.rids = grown(this.rids, (n) => new Uint32Array(n));
    this.anywhere = grown(this.anywhere, (n) => new Float64Array(n));
    this.inName = grown(this.inName, (n) => new Uint32Array(n));
  }

  /**
   * One list's postings, encoded as `encodePostings` encodes them (the same parts in the same
   * order), without a row per posting: a part depends on the food only through the word's
   * weighted count and the food's length, so it is computed once per pair of them.
   */
  encode(list: PostingList, bm25: Bm25Parts): WordPostings {
    const anywhere = list === ANYWHERE;
    const n = anywhere ? this.length : this.nameHits;
    const idf = bm25.idf(n);
    const rids = new Uint32Array(n);
    const codes = new Uint32Array(n);
    const partIndex = new Map<number, number>();
    const codeOf = new Map<number, number>();
    const parts: number[] = [];
    let out = 0;
    for (let i = 0; i < this.length; i++) {
      const inName = this.inName[i]!;
      if (!anywhere && inName === 0) continue;
      const rid = this.rids[i]!;
      const frequency = anywhere ? this.anywhere[i]! : inName * IN_NAME_WEIGHTS[NAME_COLUMN]!;
      const length = bm25.length(rid);
      const pair = frequency < PAIR_FREQUENCIES && (frequency | 0) === frequency && length < PAIR_LENGTHS ? frequency * PAIR_LENGTHS + length : -1;
      let code = pair < 0 ? undefined : codeOf.get(pair);
      if (code === undefined) {
        const part = bm25.part(idf, frequency, length);
        code = partIndex.get(part);
        if (code === undefined) {
          code = parts.length;
          partIndex.set(part, code);
          parts.push(part);
        }
        if (pair >= 0) codeOf.set(pair, code);
      }
      rids[out] = rid;
      codes[out++] = code * 2 + (inName > 0 ? 1 : 0);
    }
    const narrow = parts.length * 2 <= 0xffff ? Uint16Array.from(codes) : codes;
    return { rids, codes: narrow, parts: Float64Array.from(parts) };
  }
}

/** Pairs of (weighted count, length) below these, the count whole, are keyed as one small integer. */
const PAIR_FREQUENCIES = 1 << 10;
const PAIR_LENGTHS = 1 << 20;

const NAME_COLUMN = FOODS_FTS_COLUMNS.indexOf('name');
/** More than the number of columns: an instance travels as rowid × COLUMN_SPAN + column. */
const COLUMN_SPAN = 8;

/** Rewrites every piece of search data inside the caller's transaction; returns the number of words. */
export function rebuildSearchData(db: Database, minMatches = topMinMatches()): { words: number } {
  // ranked_top is made again: before schema 5 it held a row per food.
  db.exec(`DROP TABLE IF EXISTS ranked_top; DELETE FROM ranked_terms; DELETE FROM word_postings; DELETE FROM search_blobs;
    DROP TABLE IF EXISTS term_postings`);
  db.exec(TOP_DDL);
  const putBlob = db.prepare('INSERT INTO search_blobs (key, value) VALUES (?, ?)');
  const place = writeFoodFacts(db, (key, value) => putBlob.run(key, bytes(value)));
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.foods_fts_vocab USING fts5vocab(main, 'foods_fts', 'row')");
  // Its counts would include foods deleted since the index was last merged: only the terms are read.
  const words = db.prepare('SELECT term FROM temp.foods_fts_vocab').pluck().all() as string[];
  // The instances of each word as one list (listed-integers.ts), each as rowid × COLUMN_SPAN +
  // column index. fts5vocab yields them in rowid order and the aggregate keeps that order
  // (WordCounts.add checks it).
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.foods_fts_instance USING fts5vocab(main, 'foods_fts', 'instance')");
  const columnIndex = `CASE col ${FOODS_FTS_COLUMNS.map((c, i) => `WHEN '${c}' THEN ${i}`).join(' ')} END`;
  const instances = db.prepare(`SELECT group_concat(doc * ${COLUMN_SPAN} + ${columnIndex}) FROM temp.foods_fts_instance WHERE term = ?`).pluck();
  const bm25 = Bm25Parts.read(db, 'foods_fts', place.length - 1);
  const insertPostings = db.prepare('INSERT INTO word_postings (word, list, rids, codes, parts) VALUES (?, ?, ?, ?, ?)');
  const insertTerm = db.prepare('INSERT INTO ranked_terms (term, matches) VALUES (?, ?)');
  const insertTop = db.prepare('INSERT INTO ranked_top (list, term, rids) VALUES (?, ?, ?)');
  const store = (word: string, list: PostingList, postings: WordPostings): void => {
    if (postings.rids.length === 0) return;
    insertPostings.run(word, list, bytes(postings.rids), bytes(postings.codes), bytes(postings.parts));
  };
  const topList = (word: string, list: PostingList, postings: WordPostings): void => {
    const top = new TopFoods(TOP_DEPTH, place);
    for (let i = 0; i < postings.rids.length; i++) {
      const code = postings.codes[i]!;
      top.add(postings.rids[i]!, code & 1, postings.parts[code >>> 1]!);
    }
    insertTop.run(list, word, bytes(Uint32Array.from(top.sorted())));
  };
  const counts = new WordCounts();
  const addInstance = (code: number): void => counts.add(Math.floor(code / COLUMN_SPAN), code % COLUMN_SPAN);
  let stored = 0;
  for (const word of words) {
    counts.reset();
    forEachListed(instances.get(word) as string | null, addInstance);
    if (counts.length === 0) continue;
    const anywhere = counts.encode(ANYWHERE, bm25);
    const inName = counts.encode(IN_NAME, bm25);
    store(word, ANYWHERE, anywhere);
    store(word, IN_NAME, inName);
    stored++;
    if (anywhere.rids.length < minMatches) continue;
    insertTerm.run(word, anywhere.rids.length);
    topList(word, ANYWHERE, anywhere);
    topList(word, IN_NAME, inName);
  }
  db.exec('DROP TABLE temp.foods_fts_instance');
  db.exec('DROP TABLE temp.foods_fts_vocab');
  putBlob.run(COMPLETE_KEY, Buffer.from([1]));
  return { words: stored };
}
