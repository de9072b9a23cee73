import type { Database } from 'better-sqlite3';

/**
 * Searches of several words, ranked without scoring every match in FTS5.
 *
 * FTS5's bm25 costs ~0.7 µs for every match, and two common words ('and cooked') match a
 * quarter of a million foods at 1,000,000. bm25 is a sum over the query's words of a part that
 * depends only on the word and the food, so the importer stores, for each word it keeps lists
 * for (ranked-top.ts), every matching food with that part (the word's one-word bm25, exactly as
 * FTS5 computes it) and whether the word is in the food's name; and each food's place in name
 * order. A search of several words intersects the sorted postings (a rare word's are read from
 * FTS5 at request time: it has few) and adds the parts in query order, as FTS5 does, so scores
 * are the same doubles and the order is the general query's.
 */

/** Every match of one word in rid order, with its one-word bm25 and name tier. */
export const POSTINGS = `SELECT rowid, bm25(foods_fts, 10.0, 2.0, 4.0, 3.0, 1.0), bm25(foods_fts, 1.0, 0.0, 0.0, 0.0, 0.0) < 0
  FROM foods_fts WHERE foods_fts MATCH ? ORDER BY rowid`;

export const COMMON_WORDS_DDL = `
CREATE TABLE IF NOT EXISTS term_postings (
  term TEXT PRIMARY KEY,
  rids BLOB NOT NULL,
  scores BLOB NOT NULL,
  tiers BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS search_blobs (key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
`;

/** One word's foods, ascending by rid. */
export interface Postings {
  readonly rids: Uint32Array;
  /** The word's one-word bm25 in each food (negative; lower is better). */
  readonly scores: Float64Array;
  /** 1 where the word is in the food's name. */
  readonly tiers: Uint8Array;
}

const NOT_RANKED = 0xffffffff;

function bytes(array: Uint32Array | Float64Array | Uint8Array): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}

/** Typed arrays need aligned memory: copy when the buffer is not. */
function view<T>(buffer: Buffer, size: number, make: (b: ArrayBuffer, offset: number, length: number) => T): T {
  if (buffer.byteOffset % size === 0) return make(buffer.buffer as ArrayBuffer, buffer.byteOffset, buffer.byteLength / size);
  const copy = new Uint8Array(buffer);
  return make(copy.buffer, 0, copy.byteLength / size);
}

/**
 * Each food's place in (name_key, id) order, and its brand's rid, both indexed by rid;
 * returns the places.
 */
export function writeFoodBlobs(db: Database): Uint32Array {
  const maxRid = (db.prepare('SELECT max(rid) FROM foods').pluck().get() as number | null) ?? 0;
  const ranks = new Uint32Array(maxRid + 1).fill(NOT_RANKED);
  let place = 0;
  for (const rid of db.prepare('SELECT rid FROM foods ORDER BY name_key, id').pluck().iterate() as IterableIterator<number>) {
    ranks[rid] = place++;
  }
  const brands = new Uint32Array(maxRid + 1);
  const rows = db.prepare('SELECT f.rid, b.rid FROM foods f JOIN brands b ON b.id = f.brand_id').raw().iterate() as IterableIterator<[number, number]>;
  for (const [rid, brand] of rows) brands[rid] = brand;
  const put = db.prepare('INSERT OR REPLACE INTO search_blobs (key, value) VALUES (?, ?)');
  put.run('name_rank', bytes(ranks));
  put.run('brand_of', bytes(brands));
  return ranks;
}

export function writePostings(db: Database, term: string, postings: Postings): void {
  db.prepare('INSERT INTO term_postings (term, rids, scores, tiers) VALUES (?, ?, ?, ?)')
    .run(term, bytes(postings.rids), bytes(postings.scores), bytes(postings.tiers));
}

/**
 * Postings from `SELECT rowid, score, tier … ORDER BY rowid` rows, straight into typed arrays
 * sized by `expected` (the vocabulary's count): a common word has ~10^5 matches.
 */
export function readPostings(rows: Iterable<[rid: number, score: number, tier: number]>, expected: number): Postings {
  let rids = new Uint32Array(Math.max(expected, 16));
  let scores = new Float64Array(rids.length);
  let tiers = new Uint8Array(rids.length);
  let n = 0;
  for (const [rid, score, tier] of rows) {
    if (n === rids.length) {
      const grow = <T extends Uint32Array | Float64Array | Uint8Array>(a: T, make: (size: number) => T): T => {
        const bigger = make(a.length * 2);
        bigger.set(a);
        return bigger;
      };
      rids = grow(rids, (size) => new Uint32Array(size));
      scores = grow(scores, (size) => new Float64Array(size));
      tiers = grow(tiers, (size) => new Uint8Array(size));
    }
    rids[n] = rid;
    scores[n] = score;
    tiers[n] = tier;
    n++;
  }
  return { rids: rids.subarray(0, n), scores: scores.subarray(0, n), tiers: tiers.subarray(0, n) };
}

/** The full order: name tier first (1 before 0), then bm25 (lower first), then name place. */
function ranksBefore(tierA: number, scoreA: number, placeA: number, tierB: number, scoreB: number, placeB: number): boolean {
  if (tierA !== tierB) return tierA > tierB;
  if (scoreA !== scoreB) return scoreA < scoreB;
  return placeA < placeB;
}

/**
 * The first `depth` foods by (tier desc, score asc, name place asc) among `count` matches
 * given one at a time: a bounded heap with the worst kept food at its root.
 */
export class TopFoods {
  private readonly rids: number[] = [];
  private readonly tiers: number[] = [];
  private readonly scores: number[] = [];
  private readonly places: number[] = [];

  constructor(private readonly depth: number, private readonly ranks: Uint32Array) {}

  /** a ranks after b (is worse). */
  private worse(a: number, b: number): boolean {
    return ranksBefore(this.tiers[b]!, this.scores[b]!, this.places[b]!, this.tiers[a]!, this.scores[a]!, this.places[a]!);
  }

  private swap(i: number, j: number): void {
    [this.rids[i], this.rids[j]] = [this.rids[j]!, this.rids[i]!];
    [this.tiers[i], this.tiers[j]] = [this.tiers[j]!, this.tiers[i]!];
    [this.scores[i], this.scores[j]] = [this.scores[j]!, this.scores[i]!];
    [this.places[i], this.places[j]] = [this.places[j]!, this.places[i]!];
  }

  add(rid: number, tier: number, score: number): void {
    if (this.depth === 0) return;
    const place = this.ranks[rid] ?? NOT_RANKED;
    const n = this.rids.length;
    if (n === this.depth) {
      // Not better than the worst kept: nothing to do (the common case once the heap is full).
      if (!ranksBefore(tier, score, place, this.tiers[0]!, this.scores[0]!, this.places[0]!)) return;
      this.rids[0] = rid;
      this.tiers[0] = tier;
      this.scores[0] = score;
      this.places[0] = place;
      this.siftDown(0);
      return;
    }
    this.rids.push(rid);
    this.tiers.push(tier);
    this.scores.push(score);
    this.places.push(place);
    let i = n;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const n = this.rids.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < n && this.worse(l, worst)) worst = l;
      if (r < n && this.worse(r, worst)) worst = r;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }

  /** The kept foods' rids, best first. */
  sorted(): number[] {
    const order = this.rids.map((_, i) => i);
    order.sort((a, b) => (this.worse(a, b) ? 1 : this.worse(b, a) ? -1 : 0));
    return order.map((i) => this.rids[i]!);
  }
}

/** The first index at or after `from` whose rid is >= `rid` (galloping, then binary search). */
function seek(rids: Uint32Array, from: number, rid: number): number {
  let step = 1;
  let lo = from;
  let hi = from;
  while (hi < rids.length && rids[hi]! < rid) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > rids.length) hi = rids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rids[mid]! < rid) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The postings of one catalogue version, loaded a word at a time as searches need them
 * (all of them together are ~13 bytes a posting: ~90 MB at 1,000,000 generated foods).
 */
export class CommonWords {
  private readonly loaded = new Map<string, Postings>();
  private ranks: Uint32Array | undefined;
  private brands: Uint32Array | undefined;
  private brandLimit: number | undefined;

  constructor(private readonly db: Database, readonly version: number) {}

  /** Whether the database has postings: every import writes them; a database from before them does not. */
  static available(db: Database): boolean {
    return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'term_postings'").get() !== undefined
      && db.prepare("SELECT 1 FROM search_blobs WHERE key = 'brand_of'").get() !== undefined;
  }

  private postings(term: string): Postings | undefined {
    let found = this.loaded.get(term);
    if (!found) {
      const row = this.db.prepare('SELECT rids, scores, tiers FROM term_postings WHERE term = ?').get(term) as
        | { rids: Buffer; scores: Buffer; tiers: Buffer }
        | undefined;
      if (!row) return undefined;
      found = {
        rids: view(row.rids, 4, (b, o, n) => new Uint32Array(b, o, n)),
        scores: view(row.scores, 8, (b, o, n) => new Float64Array(b, o, n)),
        tiers: new Uint8Array(row.tiers),
      };
      this.loaded.set(term, found);
    }
    return found;
  }

  private blob(key: string): Uint32Array {
    const value = this.db.prepare('SELECT value FROM search_blobs WHERE key = ?').pluck().get(key) as Buffer;
    return view(value, 4, (b, o, n) => new Uint32Array(b, o, n));
  }

  private nameRanks(): Uint32Array {
    this.ranks ??= this.blob('name_rank');
    return this.ranks;
  }

  private brandRids(): Uint32Array {
    this.brands ??= this.blob('brand_of');
    return this.brands;
  }

  /** One more than the largest brand rid. */
  private brandRidLimit(): number {
    this.brandLimit ??= this.brandRids().reduce((max, rid) => (rid > max ? rid : max), 0) + 1;
    return this.brandLimit;
  }

  /**
   * Visits every food matching all `tokens` with its tier and score; returns the count. Words
   * without stored postings match fewer than the importer's bound: `live` reads theirs from
   * FTS5 (cheap).
   */
  private matches(tokens: readonly string[], live: (token: string) => Postings, visit: (rid: number, tier: number, score: number) => void): number {
    const lists = tokens.map((token) => this.postings(token) ?? live(token));
    const driver = lists.reduce((best, list, i) => (list.rids.length < lists[best]!.rids.length ? i : best), 0);
    const at = new Array<number>(lists.length).fill(0);
    const drive = lists[driver]!;
    let total = 0;
    outer: for (let d = 0; d < drive.rids.length; d++) {
      const rid = drive.rids[d]!;
      at[driver] = d;
      for (let i = 0; i < lists.length; i++) {
        if (i === driver) continue;
        const rids = lists[i]!.rids;
        const j = seek(rids, at[i]!, rid);
        at[i] = j;
        if (j === rids.length) break outer;
        if (rids[j] !== rid) continue outer;
      }
      total++;
      // FTS5 adds each word's part to 0.0 in query order and negates: the same doubles here.
      let sum = 0;
      let tier = 1;
      for (let i = 0; i < lists.length; i++) {
        sum += -lists[i]!.scores[at[i]!]!;
        tier &= lists[i]!.tiers[at[i]!]!;
      }
      visit(rid, tier, -sum);
    }
    return total;
  }

  /** The first `depth` rids of the full order, and the match count. */
  search(tokens: readonly string[], depth: number, live: (token: string) => Postings): { rids: number[]; total: number } {
    const top = new TopFoods(depth, this.nameRanks());
    const total = this.matches(tokens, live, (rid, tier, score) => top.add(rid, tier, score));
    return { rids: top.sorted(), total };
  }

  /**
   * Grouped by brand, groups in the order of their best food, the first `perGroup` foods of
   * each: the page `offset`, `limit` of that flat list, and its length (the grouped query's).
   */
  groupedByBrand(tokens: readonly string[], perGroup: number, offset: number, limit: number, live: (token: string) => Postings): { rids: number[]; total: number } {
    const ranks = this.nameRanks();
    const brandOf = this.brandRids();
    // Each group's best `perGroup` foods, kept sorted in fixed slots: no allocation per match.
    const groupOf = new Int32Array(this.brandRidLimit()).fill(-1);
    let groups = 0;
    let capacity = 1024;
    let count = new Uint32Array(capacity);
    let rids = new Uint32Array(capacity * perGroup);
    let tiers = new Uint8Array(capacity * perGroup);
    let scores = new Float64Array(capacity * perGroup);
    let places = new Uint32Array(capacity * perGroup);
    const better = (tier: number, score: number, place: number, slot: number): boolean =>
      ranksBefore(tier, score, place, tiers[slot]!, scores[slot]!, places[slot]!);
    this.matches(tokens, live, (rid, tier, score) => {
      const brand = brandOf[rid]!;
      let g = groupOf[brand]!;
      if (g < 0) {
        g = groups++;
        groupOf[brand] = g;
        if (g === capacity) {
          capacity *= 2;
          const grow = <T extends Uint32Array | Float64Array | Uint8Array>(a: T, make: (n: number) => T): T => {
            const bigger = make(capacity * (a === count ? 1 : perGroup));
            bigger.set(a);
            return bigger;
          };
          count = grow(count, (n) => new Uint32Array(n));
          rids = grow(rids, (n) => new Uint32Array(n));
          tiers = grow(tiers, (n) => new Uint8Array(n));
          scores = grow(scores, (n) => new Float64Array(n));
          places = grow(places, (n) => new Uint32Array(n));
        }
      }
      const place = ranks[rid]!;
      const base = g * perGroup;
      const kept = Math.min(count[g]!, perGroup);
      count[g]!++;
      if (kept === perGroup && !better(tier, score, place, base + kept - 1)) return;
      let i = kept === perGroup ? kept - 1 : kept;
      while (i > 0 && better(tier, score, place, base + i - 1)) {
        rids[base + i] = rids[base + i - 1]!;
        tiers[base + i] = tiers[base + i - 1]!;
        scores[base + i] = scores[base + i - 1]!;
        places[base + i] = places[base + i - 1]!;
        i--;
      }
      rids[base + i] = rid;
      tiers[base + i] = tier;
      scores[base + i] = score;
      places[base + i] = place;
    });
    // Groups in the order of their best food (slot 0 of each).
    const order = Array.from({ length: groups }, (_, g) => g);
    order.sort((a, b) => (better(tiers[b * perGroup]!, scores[b * perGroup]!, places[b * perGroup]!, a * perGroup) ? 1 : -1));
    const page: number[] = [];
    let total = 0;
    for (const g of order) {
      const kept = Math.min(count[g]!, perGroup);
      for (let i = 0; i < kept; i++, total++) {
        if (total >= offset && page.length < limit) page.push(rids[g * perGroup + i]!);
      }
    }
    return { rids: page, total };
  }
}
