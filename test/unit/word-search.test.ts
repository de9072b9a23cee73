import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodePostings, encodePostings, narrowIds, readIds, type FoodFacts, type WordPostings } from '../../src/store/sqlite/postings.js';
import { earlyTopMatches, matchingFoods, scoreFoods } from '../../src/store/sqlite/early-top.js';
import { seededRandom } from '../../bench/random.js';
import { forEachMatch, topMatches } from '../../src/store/sqlite/word-search.js';
import { foodTest, type RecordRids } from '../../src/store/sqlite/food-filters.js';
import { forEachListed } from '../../src/store/sqlite/listed-integers.js';
import Database from 'better-sqlite3';

const buffer = (a: ArrayBufferView): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe('postings', () => {
  test('round-trip through stored bytes, with each distinct part once and the name bit in the code', () => {
    const rows: [number, number, number][] = [[3, -1.5, 1], [9, -0.25, 0], [12, -1.5, 0], [40, 0.1 + 0.2, 1]];
    const encoded = encodePostings(rows, 2);
    assert.deepEqual([...encoded.parts], [-1.5, -0.25, 0.1 + 0.2]);
    assert.ok(encoded.codes instanceof Uint16Array);
    // Unaligned copies, as SQLite may hand them over.
    const unaligned = (a: ArrayBufferView): Buffer => Buffer.concat([Buffer.from([0]), buffer(a)]).subarray(1);
    const decoded = decodePostings({ rids: unaligned(encoded.rids), codes: unaligned(encoded.codes), parts: unaligned(encoded.parts) });
    const back = [...decoded.rids].map((rid, i): [number, number, number] =>
      [rid, decoded.parts[decoded.codes[i]! >>> 1]!, decoded.codes[i]! & 1]);
    assert.deepEqual(back, rows);
  });

  test('codes widen to 32 bits past 32,767 distinct parts; ids take the narrowest width', () => {
    const rows = Array.from({ length: 40000 }, (_, i): [number, number, number] => [i, -i - 0.5, i % 2]);
    assert.ok(encodePostings(rows, 10).codes instanceof Uint32Array);
    for (const [max, width] of [[255, 1], [256, 2], [65535, 2], [65536, 4]] as const) {
      const ids = narrowIds(3, max);
      ids[2] = max;
      assert.equal(ids.BYTES_PER_ELEMENT, width);
      assert.equal(readIds(buffer(ids), 3)[2], max);
    }
  });
});

describe('matches over postings', () => {
  const a = encodePostings([[1, -2, 1], [2, -1, 1], [5, -3, 0], [8, -4, 1]], 4);
  const b = encodePostings([[2, -0.5, 1], [5, -0.25, 1], [8, -7, 0], [9, -1, 1]], 4);

  test('parts are added in query order from 0 and negated, as FTS5 does; the tier needs every word in the name', () => {
    const seen: [number, number, number][] = [];
    const expected = [[2, 1, -(0 + 1 + 0.5)], [5, 0, -(0 + 3 + 0.25)], [8, 0, -(0 + 4 + 7)]];
    const total = forEachMatch([a, b], undefined, 10, (rid, tier, score) => seen.push([rid, tier, score]));
    assert.equal(total, 3);
    assert.deepEqual(seen, expected);
    // Without bitmaps (too sparse for a million rids; fresh objects, none built yet): the same.
    const copies = [a, b].map((p) => ({ ...p }));
    seen.length = 0;
    assert.equal(forEachMatch(copies, undefined, 1_000_000, (rid, tier, score) => seen.push([rid, tier, score])), 3);
    assert.deepEqual(seen, expected);
    // Order of addition matters for doubles: the query's order is kept whichever list drives.
    const third = encodePostings([[2, -0.1, 1], [5, -0.2, 1], [8, -0.3, 1]], 3);
    const scores: number[] = [];
    forEachMatch([b, a, third], undefined, 10, (_r, _t, score) => scores.push(score));
    assert.deepEqual(scores, [-(0 + 0.5 + 1 + 0.1), -(0 + 0.25 + 3 + 0.2), -(0 + 7 + 4 + 0.3)]);
  });

  test('the top keeps tier, then score, then name place; a filter is tested on matches only', () => {
    const place = Uint32Array.from([0, 40, 30, 0, 0, 20, 0, 0, 10, 0]);
    assert.deepEqual(topMatches([a, b], undefined, 2, place), { rids: [2, 8], total: 3 });
    assert.deepEqual(topMatches([a], (rid) => rid !== 2, 10, place), { rids: [8, 1, 5], total: 3 });
    const tied = encodePostings([[1, -1, 1], [2, -1, 1], [5, -1, 1], [8, -1, 1]], 4);
    assert.deepEqual(topMatches([tied], undefined, 3, place).rids, [8, 5, 2]);
  });
});

describe('filters in memory', () => {
  // Foods 1–4. Brands 1, 2; categories 1 (parent of 2, 3); tags 1, 2, 3.
  const facts: FoodFacts = {
    place: Uint32Array.from([0, 0, 1, 2, 3]),
    nameLength: undefined,
    region: Uint8Array.from([0, 2, 2, 1, 2]),
    brand: Uint8Array.from([0, 1, 2, 1, 2]),
    category: Uint8Array.from([0, 2, 3, 2, 3]),
    tagStart: Uint32Array.from([0, 0, 2, 3, 3, 4]),
    tagRids: Uint8Array.from([1, 2, 2, 3]),
  };
  const ids: Record<string, number> = { b1: 1, b2: 2, t1: 1, t2: 2, t3: 3 };
  const rids: RecordRids = {
    brandRid: (id) => (id.startsWith('b') ? ids[id] : undefined),
    tagRid: (id) => (id.startsWith('t') ? ids[id] : undefined),
    categoriesUnder: (list) => list.flatMap((id) => (id === 'c1' ? [1, 2, 3] : id === 'c2' ? [2] : id === 'c3' ? [3] : [])),
    limits: { brand: 3, category: 4, tag: 4 },
  };
  const passing = (filters: Parameters<typeof foodTest>[0]): number[] => {
    const t = foodTest(filters, facts, rids);
    assert.notEqual(t, 'sql');
    return [1, 2, 3, 4].filter((rid) => t === undefined || (t as (rid: number) => boolean)(rid));
  };
  const none = { include: [], exclude: [] };

  test('each filter has the SQL plan\'s meaning', () => {
    assert.deepEqual(passing({}), [1, 2, 3, 4]);
    assert.deepEqual(passing({ region: 'us' }), [1, 2, 4]);
    assert.deepEqual(passing({ brands: { include: ['b2', 'b9'], exclude: [] } }), [2, 4]);
    assert.deepEqual(passing({ brands: { include: ['b9'], exclude: [] } }), []);
    assert.deepEqual(passing({ brands: { include: [], exclude: ['b1', 'b9'] } }), [2, 4]);
    assert.deepEqual(passing({ categories: { values: ['c1'], inverted: false } }), [1, 2, 3, 4]);
    assert.deepEqual(passing({ categories: { values: ['c3'], inverted: false } }), [2, 4]);
    assert.deepEqual(passing({ categories: { values: ['c3', 'c9'], inverted: true } }), [1, 3]);
    // Included tags: every one of them; an unknown one matches no food.
    assert.deepEqual(passing({ tags: { ...none, include: ['t2'] } }), [1, 2]);
    assert.deepEqual(passing({ tags: { ...none, include: ['t1', 't2'] } }), [1]);
    assert.deepEqual(passing({ tags: { ...none, include: ['t2', 't9'] } }), []);
    assert.deepEqual(passing({ tags: { include: [], exclude: ['t2', 't9'] } }), [3, 4]);
    assert.deepEqual(passing({ region: 'us', brands: { include: [], exclude: ['b2'] }, tags: { ...none, include: ['t1'] } }), [1]);
  });

  test('classifications are strings: they need the SQL plan', () => {
    assert.equal(foodTest({ classifications: { values: ['x'], inverted: false } }, facts, rids), 'sql');
  });
});

describe('early termination and counting (early-top.ts)', () => {
  test('the same page and total as visiting every match, over random lists of every density (early termination, and scoring the foods in common)', () => {
    const random = seededRandom(2024);
    const ridLimit = 4000;
    const place = Uint32Array.from({ length: ridLimit }, (_, rid) => (rid * 7919) % ridLimit);
    // Few distinct parts, as real words have: many ties, broken by place.
    // Some words have parts of nearly one worth for every food ('and': not read in part order
    // beside words whose parts spread).
    const list = (density: number): WordPostings => {
      const parts = Array.from({ length: 1 + Math.floor(random() * 6) }, () => -Math.round(random() * 8) / 4);
      if (random() < 0.25) parts.forEach((_, k) => (parts[k] = -1 - random() / 512));
      // Some lists have the word in every food's name, as SOAP's name-only lists do.
      const inName = random() < 0.15 ? 1 : 0.6;
      const rows: [number, number, number][] = [];
      for (let rid = 1; rid < ridLimit; rid++) {
        if (random() < density) rows.push([rid, parts[Math.floor(random() * parts.length)]!, random() < inName ? 1 : 0]);
      }
      return encodePostings(rows, rows.length);
    };
    let compared = 0;
    const tiers = [0, 0];
    for (let i = 0; i < 300; i++) {
      // Up to four words: a sparse one beside three with bitmaps takes every loop of the matcher.
      const lists = Array.from({ length: 2 + (i % 3) }, () => list([0.005, 0.05, 0.3, 0.9][Math.floor(random() * 4)]!));
      // The same postings object twice: the matcher counts a repeated word once, but nothing
      // here may depend on it.
      if (i % 7 === 0) lists.push(lists[0]!);
      for (const depth of [1, 20, 200]) {
        const all = topMatches(lists, undefined, depth, place);
        // Galloping in every list (fresh objects without bitmaps, too sparse for the limit) agrees.
        const visits = (of: readonly WordPostings[], limit: number): number[][] => {
          const seen: number[][] = [];
          forEachMatch(of, undefined, limit, (rid, tier, score) => seen.push([rid, tier, score]));
          return seen;
        };
        const withBitmaps = visits(lists, ridLimit);
        assert.equal(withBitmaps.length, all.total, `case ${i}`);
        assert.deepEqual(visits(lists.map((p) => ({ ...p })), 2 ** 31), withBitmaps, `case ${i}, galloping`);
        assert.deepEqual(earlyTopMatches(lists, depth, place), all.rids, `case ${i}, depth ${depth}`);
        // With the name tier known (every word in the name): scored alone when it fills the
        // page, else kept whole before the rest is read in part order.
        const named = matchingFoods(lists, ridLimit, 0, ridLimit).named;
        assert.ok(named !== undefined, `case ${i}: every list has name bits or codes at hand`);
        const tier = visits(lists, ridLimit).filter(([, t]) => t === 1).map(([rid]) => rid!);
        assert.deepEqual([...named], tier, `case ${i}, the name tier`);
        tiers[tier.length >= depth ? 1 : 0]! += 1;
        assert.deepEqual(earlyTopMatches(lists, depth, place, Uint32Array.from(named)), all.rids, `case ${i}, depth ${depth}, name tier`);
        if (tier.length > 0) assert.equal(matchingFoods(lists, ridLimit, 0, tier.length - 1).named, undefined, `case ${i}, name tier past its cap`);
        const common = matchingFoods(lists, ridLimit, ridLimit);
        assert.equal(common.total, all.total, `case ${i}`);
        assert.deepEqual(scoreFoods(lists, common.rids!, depth, place), all.rids, `case ${i}, depth ${depth}, scored`);
        // Collected only up to the cap: beyond it, counted alone.
        const capped = matchingFoods(lists, ridLimit, Math.max(0, all.total - 1));
        assert.equal(capped.total, all.total, `case ${i}, capped`);
        if (all.total === 0) assert.equal(capped.rids?.length, 0, `case ${i}, none in common: an empty list`);
        else assert.equal(capped.rids, undefined, `case ${i}, nothing collected past the cap`);
        assert.equal(matchingFoods(lists, ridLimit, all.total).rids?.length, all.total, `case ${i}, collected`);
        compared += all.rids.length;
      }
    }
    assert.ok(compared > 10000, `${compared} foods compared`);
    assert.ok(tiers[0]! >= 15 && tiers[1]! >= 100, `name tiers smaller than the page: ${tiers[0]}, filling it: ${tiers[1]}`);
  });
});

describe('integer lists aggregated in SQLite (listed-integers.ts)', () => {
  test('read back in order, with every width of number, from group_concat itself', () => {
    const db = new Database(':memory:');
    try {
      const values = [0, 7, 10, 99, 123456789, 2 ** 31, 2 ** 40 + 3, 9];
      db.exec('CREATE TABLE t (n INTEGER)');
      const insert = db.prepare('INSERT INTO t VALUES (?)');
      for (const n of values) insert.run(n);
      const listed: number[] = [];
      forEachListed(db.prepare('SELECT group_concat(n) FROM t').pluck().get() as string, (n) => listed.push(n));
      assert.deepEqual(listed, values);
      const none: number[] = [];
      forEachListed(db.prepare('SELECT group_concat(n) FROM t WHERE n < 0').pluck().get() as string | null, (n) => none.push(n));
      forEachListed('', (n) => none.push(n));
      assert.deepEqual(none, []);
    } finally {
      db.close();
    }
  });
});
