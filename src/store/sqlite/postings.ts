import type { Database, Statement } from 'better-sqlite3';

/**
 * The importer's postings: for every word of the foods index, every food that has it, with
 * the word's part of FTS5's bm25 for that food (the exact double) and whether the word is in
 * the food's name. search-data.ts writes them, word-search.ts searches them.
 *
 * bm25 is a sum over a query's words of a part that depends only on the word and the food
 * (FTS5 adds the parts in query order, starting from 0.0, and negates the sum), so adding the
 * stored parts in query order gives FTS5's very doubles, and an order equal to the SQL plan's.
 *
 * A word's part depends on the food only through the word's weighted count in it and the
 * food's length, so a word has few distinct parts (at most ~1,000 at 1,000,000 generated
 * foods): each posting stores a 16-bit code, `part index × 2 + name bit`, into the word's
 * table of parts. A posting is 6 bytes in memory.
 */

/** Every food with the word anywhere (the JSON interface): parts of bm25 weighted 10, 2, 4, 3, 1. */
export const ANYWHERE = 0;
/** Foods with the word in the name, parts of a name-only search (SOAP foodSearch). */
export const IN_NAME = 1;
/** Which foods a list holds. */
export type PostingList = typeof ANYWHERE | typeof IN_NAME;

export interface WordPostings {
  /** Foods in rid order. */
  readonly rids: Uint32Array;
  /** Per food: index into `parts` × 2, plus 1 when the word is in the food's name. */
  readonly codes: Uint16Array | Uint32Array;
  /** The word's bm25 parts (negative: lower ranks first). */
  readonly parts: Float64Array;
}

export const SEARCH_DATA_DDL = `
CREATE TABLE IF NOT EXISTS word_postings (
  word TEXT NOT NULL,
  list INTEGER NOT NULL,
  rids BLOB NOT NULL,
  codes BLOB NOT NULL,
  parts BLOB NOT NULL,
  PRIMARY KEY (word, list)
);
CREATE TABLE IF NOT EXISTS search_blobs (key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
`;

/** Written last by the importer: a database with it has postings for every word. */
export const COMPLETE_KEY = 'postings_complete';

export function bytes(array: ArrayBufferView): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}

/** Typed arrays need aligned memory: copy when SQLite's buffer is not. */
function aligned(buffer: Buffer, width: number): { buffer: ArrayBuffer; offset: number } {
  if (buffer.byteOffset % width === 0) return { buffer: buffer.buffer as ArrayBuffer, offset: buffer.byteOffset };
  const copy = new Uint8Array(buffer);
  return { buffer: copy.buffer, offset: 0 };
}

/** An array of small non-negative integers in the narrowest width that holds `max`. */
export function narrowIds(length: number, max: number): Uint8Array | Uint16Array | Uint32Array {
  return max < 0x100 ? new Uint8Array(length) : max < 0x10000 ? new Uint16Array(length) : new Uint32Array(length);
}

/** Reads back `narrowIds`: the width is the byte length over the count. */
export function readIds(buffer: Buffer, count: number): Uint8Array | Uint16Array | Uint32Array {
  const width = count === 0 ? 1 : buffer.byteLength / count;
  const { buffer: b, offset } = aligned(buffer, width);
  if (width === 1) return new Uint8Array(b, offset, count);
  if (width === 2) return new Uint16Array(b, offset, count);
  if (width === 4) return new Uint32Array(b, offset, count);
  throw new Error(`stored id list of ${buffer.byteLength} bytes does not hold ${count} ids`);
}

export function readUint32(buffer: Buffer): Uint32Array {
  const { buffer: b, offset } = aligned(buffer, 4);
  return new Uint32Array(b, offset, buffer.byteLength / 4);
}

/**
 * Postings from `SELECT rowid, part, inName … ORDER BY rowid` rows, encoded as stored.
 * `expected` sizes the first arrays (the vocabulary's count); they grow when it is short.
 */
export function encodePostings(rows: Iterable<[rid: number, part: number, inName: number]>, expected: number): WordPostings {
  let rids = new Uint32Array(Math.max(expected, 16));
  let codes = new Uint32Array(rids.length);
  const index = new Map<number, number>();
  const parts: number[] = [];
  let n = 0;
  for (const [rid, part, inName] of rows) {
    if (n === rids.length) {
      const grow = (a: Uint32Array<ArrayBuffer>): Uint32Array<ArrayBuffer> => {
        const bigger = new Uint32Array(a.length * 2);
        bigger.set(a);
        return bigger;
      };
      rids = grow(rids);
      codes = grow(codes);
    }
    let i = index.get(part);
    if (i === undefined) {
      i = parts.length;
      index.set(part, i);
      parts.push(part);
    }
    rids[n] = rid;
    codes[n] = i * 2 + (inName ? 1 : 0);
    n++;
  }
  const narrow = parts.length * 2 <= 0xffff ? Uint16Array.from(codes.subarray(0, n)) : codes.slice(0, n);
  return { rids: rids.slice(0, n), codes: narrow, parts: Float64Array.from(parts) };
}

export function decodePostings(row: { rids: Buffer; codes: Buffer; parts: Buffer }): WordPostings {
  const rids = readUint32(row.rids);
  const codes = readIds(row.codes, rids.length);
  if (codes instanceof Uint8Array) throw new Error('stored postings codes are 16 or 32 bits wide');
  const { buffer, offset } = aligned(row.parts, 8);
  return { rids, codes, parts: new Float64Array(buffer, offset, row.parts.byteLength / 8) };
}

export function postingsBytes(p: WordPostings): number {
  return p.rids.byteLength + p.codes.byteLength + p.parts.byteLength;
}

/**
 * Postings read from the database as searches need them, the least recently used dropped
 * past `maxBytes`: a serving process holds the words its traffic uses, not the whole index
 * (~55 MB at 1,000,000 generated foods, more on richer catalogues).
 */
export class PostingsCache {
  private readonly held = new Map<string, WordPostings>();
  private bytes = 0;
  private readonly read: Statement<[string, number], { rids: Buffer; codes: Buffer; parts: Buffer }>;

  constructor(db: Database, private readonly maxBytes: number) {
    this.read = db.prepare('SELECT rids, codes, parts FROM word_postings WHERE word = ? AND list = ?');
  }

  /** A word's postings, or undefined when no food has the word. */
  get(word: string, list: PostingList): WordPostings | undefined {
    const key = `${list}${word}`;
    let found = this.held.get(key);
    if (found !== undefined) {
      this.held.delete(key);
      this.held.set(key, found);
      return found;
    }
    const row = this.read.get(word, list);
    if (row === undefined) return undefined;
    found = decodePostings(row);
    this.held.set(key, found);
    this.bytes += postingsBytes(found);
    for (const [k, v] of this.held) {
      if (this.bytes <= this.maxBytes || k === key) break;
      this.held.delete(k);
      this.bytes -= postingsBytes(v);
    }
    return found;
  }

  get heldBytes(): number {
    return this.bytes;
  }
}

/**
 * What the in-memory searches need to know of every food, indexed by rid: its place in name
 * order (name_key, id), and the records the filters test (region, brand, category, tags).
 */
export interface FoodFacts {
  /** Place in (name_key, id) order; 0xffffffff for a rid with no food. */
  readonly place: Uint32Array;
  /** `length(name_key)` by place; undefined in a database written before it was stored. */
  readonly nameLength: Uint8Array | Uint16Array | Uint32Array | undefined;
  /** Region code: index in REGIONS + 1; 0 for a rid with no food. */
  readonly region: Uint8Array;
  readonly brand: Uint8Array | Uint16Array | Uint32Array;
  readonly category: Uint8Array | Uint16Array | Uint32Array;
  /** The tags of food `rid` are `tagRids[tagStart[rid] … tagStart[rid + 1])`. */
  readonly tagStart: Uint32Array;
  readonly tagRids: Uint8Array | Uint16Array | Uint32Array;
}

export const NO_PLACE = 0xffffffff;

export function readFoodFacts(db: Database): FoodFacts | undefined {
  const blob = db.prepare<[string], Buffer>('SELECT value FROM search_blobs WHERE key = ?').pluck();
  const get = (key: string): Buffer | undefined => blob.get(key);
  const place = get('place');
  const region = get('region');
  const brand = get('brand');
  const category = get('category');
  const tagStart = get('tag_start');
  const tagRids = get('tag_rids');
  if (!place || !region || !brand || !category || !tagStart || !tagRids) return undefined;
  const places = readUint32(place);
  const starts = readUint32(tagStart);
  const nameLength = get('name_length');
  let foods = 0;
  for (const p of places) if (p !== NO_PLACE) foods++;
  return {
    place: places,
    nameLength: nameLength && readIds(nameLength, foods),
    region: new Uint8Array(region),
    brand: readIds(brand, places.length),
    category: readIds(category, places.length),
    tagStart: starts,
    tagRids: readIds(tagRids, starts[starts.length - 1] ?? 0),
  };
}
