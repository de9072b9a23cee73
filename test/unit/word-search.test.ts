import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SlotPostings } from '../../src/search/postings.js';
import type { FoodFacts } from '../../src/search/search-index.js';
import { earlyTopMatches, matchingFoods, scoreFoods } from '../../src/search/early-top.js';
import { seededRandom } from '../../bench/random.js';
import { finalScore, forEachCommonFood, forEachMatch, groupedByBrand, inRankOrder, matchScore, matchTier, ranksBefore, topMatches, type FoodRanks } from '../../src/search/word-search.js';
import fc from 'fast-check';
import { boundFirstPage, boundOrder, boundOrderSteps, drivenPage, type UnionSlot } from '../../src/search/bound-first.js';
import { BASE_COVERS, BASE_PARTS, PARTIAL_COVERS, baseCode } from '../../src/search/postings.js';
import { better } from '../../src/search/slots.js';
import { foodTest, type RecordRids } from '../../src/search/food-filters.js';
import { KINDS, coverageBonus, packShape, staticScore } from '../../src/search/ranking.js';

/** `run`'s result with the environment variable set (or unset), as it was afterwards. */
function withEnv<T>(name: string, value: number | undefined, run: () => T): T {
  const before = process.env[name];
  if (value === undefined) delete process.env[name];
  else process.env[name] = String(value);
  try {
    return run();
  } finally {
    if (before === undefined) delete process.env[name];
    else process.env[name] = before;
  }
}

/**
 * A list from rows of (rid, part, in name), rids ascending: each distinct (part, coverage) is
 * a kind, as a list made at query time has them (slots.ts). `cover` gives a row's coverage.
 */
function encodePostings(rows: readonly [number, number, number][], _expected = 0, cover: (i: number) => number = () => 0): SlotPostings {
  const kinds = new Map<string, number>();
  const parts: number[] = [];
  const covers: number[] = [];
  const codes = rows.map(([, part, named], i) => {
    const key = `${part} ${cover(i)}`;
    let kind = kinds.get(key);
    if (kind === undefined) {
      kind = parts.length;
      kinds.set(key, kind);
      parts.push(part);
      covers.push(cover(i));
    }
    return kind * 2 + named;
  });
  return { rids: Uint32Array.from(rows, (r) => r[0]), codes: Uint32Array.from(codes), parts: Float64Array.from(parts), covers: Uint32Array.from(covers) };
}

/** Ranks where only name order counts (no static part, no shape): scores are the parts' sums. */
function plainRanks(place: Uint32Array): FoodRanks {
  return { place, shape: new Uint32Array(place.length), staticPart: new Int16Array(place.length) };
}

describe('matches over postings', () => {
  const a = encodePostings([[1, -2, 1], [2, -1, 1], [5, -3, 0], [8, -4, 1]]);
  const b = encodePostings([[2, -0.5, 1], [5, -0.25, 1], [8, -7, 0], [9, -1, 1]]);

  test('a match scores the sum of its parts; the tier needs every word in the name', () => {
    const seen: [number, number, number][] = [];
    const expected = [[2, 1, -(0 + 1 + 0.5)], [5, 0, -(0 + 3 + 0.25)], [8, 0, -(0 + 4 + 7)]];
    const total = forEachMatch([a, b], undefined, plainRanks(new Uint32Array(10)), (rid, tier, score) => seen.push([rid, tier, score]));
    assert.equal(total, 3);
    assert.deepEqual(seen, expected);
    // Without bitmaps (too sparse for a million rids; fresh objects, none built yet): the same.
    const copies = [a, b].map((p) => ({ ...p }));
    seen.length = 0;
    assert.equal(forEachMatch(copies, undefined, plainRanks(new Uint32Array(1_000_000)), (rid, tier, score) => seen.push([rid, tier, score])), 3);
    assert.deepEqual(seen, expected);
    // The lists' order is kept whichever list drives.
    const third = encodePostings([[2, -0.1, 1], [5, -0.2, 1], [8, -0.3, 1]]);
    const scores: number[] = [];
    forEachMatch([b, a, third], undefined, plainRanks(new Uint32Array(10)), (_r, _t, score) => scores.push(score));
    assert.deepEqual(scores, [-(0 + 0.5 + 1 + 0.1), -(0 + 0.25 + 3 + 0.2), -(0 + 7 + 4 + 0.3)]);
  });

  test('the top keeps tier, then score, then name place; a filter is tested on matches only', () => {
    const place = Uint32Array.from([0, 40, 30, 0, 0, 20, 0, 0, 10, 0]);
    assert.deepEqual(topMatches([a, b], undefined, 2, plainRanks(place)), { rids: [2, 8], total: 3 });
    assert.deepEqual(topMatches([a], (rid) => rid !== 2, 10, plainRanks(place)), { rids: [8, 1, 5], total: 3 });
    const tied = encodePostings([[1, -1, 1], [2, -1, 1], [5, -1, 1], [8, -1, 1]]);
    assert.deepEqual(topMatches([tied], undefined, 3, plainRanks(place)).rids, [8, 5, 2]);
  });
});

describe('filters in memory', () => {
  // Foods 1–4. Brands 1, 2; categories 1 (parent of 2, 3); tags 1, 2, 3.
  const facts: FoodFacts = {
    place: Uint32Array.from([0, 0, 1, 2, 3]),
    nameLength: new Uint8Array(4),
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
    // Foods 1 and 3 are classified 'Cheese, hard' (case-insensitively), 2 and 4 otherwise.
    classificationFoods: (values) => (values.some((v) => v.toLowerCase() === 'cheese, hard') ? [1, 3] : []),
    // Food 2 carries barcode key k2, food 4 carries k4 and k2.
    upcFoods: (keys) => [2, 4].filter((rid) => keys.includes(`k${rid}`) || keys.includes('k2')),
    limits: { brand: 3, category: 4, tag: 4 },
  };
  const passing = (filters: Parameters<typeof foodTest>[0]): number[] => {
    const t = foodTest(filters, facts, rids);
    return [1, 2, 3, 4].filter((rid) => t === undefined || t(rid));
  };
  const none = { include: [], exclude: [] };

  test('each filter has the contract\'s meaning', () => {
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

  test('classifications: the foods the store finds with them, or inverted the others', () => {
    assert.deepEqual(passing({ classifications: { values: ['Cheese, HARD'], inverted: false } }), [1, 3]);
    assert.deepEqual(passing({ classifications: { values: ['Cheese, hard', 'Milk'], inverted: true } }), [2, 4]);
    assert.deepEqual(passing({ classifications: { values: ['Milk'], inverted: false }, region: 'us' }), []);
  });

  test('barcodes: the foods the store finds carrying one of the keys', () => {
    assert.deepEqual(passing({ upcs: ['k4'] }), [4]);
    assert.deepEqual(passing({ upcs: ['k2', 'k9'] }), [2, 4]);
    assert.deepEqual(passing({ upcs: ['k9'] }), []);
    assert.deepEqual(passing({ upcs: ['k2'], brands: { include: ['b1'], exclude: [] } }), []);
  });
});

describe('early termination and counting (early-top.ts)', () => {
  test('the same page and total as visiting every match, over random lists of every density (early termination, and scoring the foods in common)', () => {
    const random = seededRandom(2024);
    const ridLimit = 4000;
    const place = Uint32Array.from({ length: ridLimit }, (_, rid) => (rid * 7919) % ridLimit);
    // Foods with a static part and a name shape, so that coverage bonuses (ranking.ts) count:
    // the early termination's bound must allow for both.
    const ranks: FoodRanks = {
      place,
      shape: Uint32Array.from({ length: ridLimit }, () => packShape([1 + Math.floor(random() * 2), Math.floor(random() * 3), Math.floor(random() * 2)], 1 + Math.floor(random() * 4))),
      staticPart: Int16Array.from({ length: ridLimit }, () => Math.floor(random() * 30)),
    };
    // Few distinct parts, as real words have: many ties, broken by place.
    // Some words have parts of nearly one worth for every food ('and': not read in part order
    // beside words whose parts spread).
    const list = (density: number): SlotPostings => {
      const parts = Array.from({ length: 1 + Math.floor(random() * 6) }, () => -Math.round(random() * 40));
      if (random() < 0.25) parts.forEach((_, k) => (parts[k] = -20 - (k % 2)));
      // Some lists have the word in every food's name, as SOAP's name-only lists do.
      const inName = random() < 0.15 ? 1 : 0.6;
      const rows: [number, number, number][] = [];
      for (let rid = 1; rid < ridLimit; rid++) {
        if (random() < density) rows.push([rid, parts[Math.floor(random() * parts.length)]!, random() < inName ? 1 : 0]);
      }
      // Coverage: which of the first segments the word is in (a byte each), and the name (top byte).
      const covers = rows.map(([, , named]) => (random() < 0.5 ? 1 : 0) + (random() < 0.3 ? 1 << 8 : 0) + (named ? 1 << 24 : 0));
      return encodePostings(rows, rows.length, (k) => covers[k]!);
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
        const all = topMatches(lists, undefined, depth, ranks);
        // Galloping in every list (fresh objects without bitmaps, too sparse for the limit) agrees.
        const visits = (of: readonly SlotPostings[], limit: number): number[][] => {
          const seen: number[][] = [];
          forEachCommonFood(of, undefined, limit, true, (rid, at) => seen.push([rid, matchTier(of, at), matchScore(of, at, rid, ranks)]));
          return seen;
        };
        const withBitmaps = visits(lists, ridLimit);
        assert.equal(withBitmaps.length, all.total, `case ${i}`);
        assert.deepEqual(visits(lists.map((p) => ({ ...p })), 2 ** 31), withBitmaps, `case ${i}, galloping`);
        assert.deepEqual(earlyTopMatches(lists, depth, ranks), all.rids, `case ${i}, depth ${depth}`);
        // With the name tier known (every word in the name): scored alone when it fills the
        // page, else kept whole before the rest is read in part order.
        const named = matchingFoods(lists, ridLimit, 0, ridLimit).named;
        assert.ok(named !== undefined, `case ${i}: every list has name bits or codes at hand`);
        const tier = visits(lists, ridLimit).filter(([, t]) => t === 1).map(([rid]) => rid!);
        assert.deepEqual([...named], tier, `case ${i}, the name tier`);
        tiers[tier.length >= depth ? 1 : 0]! += 1;
        assert.deepEqual(earlyTopMatches(lists, depth, ranks, Uint32Array.from(named)), all.rids, `case ${i}, depth ${depth}, name tier`);
        if (tier.length > 0) assert.equal(matchingFoods(lists, ridLimit, 0, tier.length - 1).named, undefined, `case ${i}, name tier past its cap`);
        const common = matchingFoods(lists, ridLimit, ridLimit);
        assert.equal(common.total, all.total, `case ${i}`);
        assert.deepEqual(scoreFoods(lists, common.rids!, depth, ranks), all.rids, `case ${i}, depth ${depth}, scored`);
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

  test('sparse lists alike in size (merged) beside longer sparse ones and bitmaps: the same foods in common and name tier as visiting every match', () => {
    const random = seededRandom(77);
    const ridLimit = 40_000;
    // Sparse: under 1/16 of the foods, so no bitmap. Each list keeps a food of a shared pool
    // with its own chance, so that several lists have many foods in common.
    const pool = Array.from({ length: ridLimit }, (_, rid) => rid).filter(() => random() < 0.05);
    const list = (keep: number, extra: number): SlotPostings => {
      const rids = new Set(pool.filter(() => random() < keep));
      for (let k = 0; k < extra; k++) rids.add(Math.floor(random() * ridLimit));
      const rows = [...rids].sort((a, b) => a - b).map((rid): [number, number, number] => [rid, -Math.round(random() * 20), random() < 0.7 ? 1 : 0]);
      return encodePostings(rows);
    };
    const dense = (): SlotPostings => encodePostings(Array.from({ length: ridLimit }, (_, rid) => rid).filter(() => random() < 0.6)
      .map((rid): [number, number, number] => [rid, -1, random() < 0.8 ? 1 : 0]));
    let merged = 0;
    for (let i = 0; i < 40; i++) {
      // A driver and a partner alike in size (merged); then none, one or two lists more (the
      // first too sparse for a bitmap: searched forward; the second with one), and a common
      // word's bitmap or none.
      const lists = [list(0.9, 50), list(0.8, 200 + i * 10)];
      for (let k = 0; k < i % 3; k++) lists.push(list(0.95, k === 0 ? 100 : 1500));
      if (i % 2 === 1) lists.push(dense());
      const visits: [number, number][] = [];
      forEachCommonFood(lists, undefined, ridLimit, true, (rid, at) => visits.push([rid, matchTier(lists, at)]));
      const counted = matchingFoods(lists, ridLimit, ridLimit, ridLimit);
      assert.deepEqual([...counted.rids!], visits.map(([rid]) => rid), `case ${i}, foods in common`);
      assert.deepEqual([...counted.named!], visits.filter(([, tier]) => tier === 1).map(([rid]) => rid), `case ${i}, name tier`);
      // Counting only up to a cap: the total is then only known to pass it.
      const stopped = matchingFoods(lists, ridLimit, 10, 0, false);
      assert.equal(stopped.rids === undefined, visits.length > 10, `case ${i}, stopped past the cap`);
      if (visits.length <= 10) assert.equal(stopped.total, visits.length, `case ${i}, counted whole`);
      merged += visits.length;
    }
    assert.ok(merged > 2000, `${merged} foods in common compared`);
  });
});

describe('slots as unions of lists (bound-first.ts)', () => {
  /** A stored-like list: random rids below `ridLimit`, each a random placement kind (its in-name bit from the kind). */
  function storedList(random: () => number, ridLimit: number, size: number, partial = false): SlotPostings {
    const rids = new Set<number>();
    while (rids.size < size) rids.add(Math.floor(random() * ridLimit));
    const sorted = Uint32Array.from([...rids].sort((a, b) => a - b));
    const codes = Uint8Array.from(sorted, () => baseCode(Math.floor(random() * KINDS)));
    // A type-ahead word's longer completion counts for no name coverage (slots.ts choiceList).
    return { rids: sorted, codes, parts: BASE_PARTS, covers: partial ? PARTIAL_COVERS : BASE_COVERS };
  }

  /** The reference: each food's best entry per slot (slots.ts `better`), every match scored and sorted. */
  function reference(slots: readonly UnionSlot[], depth: number, ranks: FoodRanks): { rids: number[]; total: number } {
    const best = slots.map((slot) => {
      const entries = new Map<number, { named: number; value: number; cover: number }>();
      for (const { list, offset } of slot) {
        list.rids.forEach((rid, i) => {
          const code = list.codes[i]!;
          const e = { named: code & 1, value: -list.parts[code >>> 1]! + offset, cover: list.covers[code >>> 1]! };
          const had = entries.get(rid);
          if (had === undefined || better(e.named, e.value, e.cover, had.named, had.value, had.cover)) entries.set(rid, e);
        });
      }
      return entries;
    });
    const found: { rid: number; tier: number; score: number }[] = [];
    for (const rid of best[0]!.keys()) {
      const entries = best.map((m) => m.get(rid));
      if (entries.some((e) => e === undefined)) continue;
      const tier = entries.reduce((t, e) => t & e!.named, 1);
      const sum = entries.reduce((s, e) => s - e!.value, 0);
      const cover = entries.reduce((c, e) => c + e!.cover, 0);
      found.push({ rid, tier, score: finalScore(sum, cover, rid, ranks) });
    }
    found.sort((a, b) => (ranksBefore(a.tier, a.score, ranks.place[a.rid]!, b.tier, b.score, ranks.place[b.rid]!) ? -1 : 1));
    return { rids: found.slice(0, depth).map((f) => f.rid), total: found.length };
  }

  test('the page and total of every match scored, driven by a rare word or read best bound first, for slots of one list or of many', () => {
    const random = seededRandom(2323);
    let compared = 0;
    const paths = { driven: 0, all: 0, named: 0, bound: 0 };
    for (let i = 0; i < 300; i++) {
      const ridLimit = 500 + Math.floor(random() * 3000);
      // Real food ranks: static parts of servings and marks, shapes of up to 3 segments.
      const place = Uint32Array.from(Array.from({ length: ridLimit }, (_, r) => r).sort(() => random() - 0.5));
      const shape = Uint32Array.from({ length: ridLimit }, () => packShape([1 + Math.floor(random() * 3), Math.floor(random() * 3), Math.floor(random() * 2)], 1 + Math.floor(random() * 6)));
      // Static parts spread wider in every fifth case: bounds spanning 255 or more are worked out
      // food by food, not read from the order's bytes.
      const spread = i % 5 === 0 ? 4 : 1;
      const staticPart = Int16Array.from({ length: ridLimit }, () => -spread * staticScore(Math.floor(random() * 12), Math.floor(random() * 128)));
      const ranks: FoodRanks = { place, shape, staticPart };
      const slotCount = 1 + Math.floor(random() * 3);
      // Slots of partial completions only count for no name coverage; a slot with one whole part may.
      let named = 0;
      const slots: UnionSlot[] = Array.from({ length: slotCount }, () => {
        const parts = 1 + Math.floor(random() * 4);
        const partial = random() < 0.4;
        const wholePart = partial && random() < 0.3 ? 0 : -1;
        if (!partial || wholePart === 0) named++;
        // Dense lists (a bitmap: 1 / 16 of the rids or more) and sparse ones, each with an offset.
        return Array.from({ length: parts }, (_, p) => ({
          list: storedList(random, ridLimit, Math.floor(random() < 0.5 ? ridLimit * (0.07 + random() * 0.6) : random() * ridLimit * 0.05), partial && p !== wholePart),
          offset: 2 * Math.floor(random() * 8),
        }));
      });
      const depth = 1 + Math.floor(random() * 30);
      const want = reference(slots, depth, ranks);
      const scoreAllMax = [0, 20, ridLimit][i % 3]!;
      // The catalogue's bound order whole, or cut short after a few foods or bounds: the page
      // then goes on from the foods collected (read once per ranks, which each case makes anew).
      const orderMax = [1, 40, 400, undefined][i % 4];
      // Matches collected as they are counted (16,384 by default), or too many to be: the foods
      // left to read are then found in the bitmaps.
      const collect = i % 7 < 3 ? 0 : undefined;
      const got = withEnv('FOODLOOKUP_COLLECT_MAX', collect, () =>
        withEnv('FOODLOOKUP_BOUND_ORDER_MAX', orderMax, () => boundFirstPage(slots, { units: slotCount, named }, depth, ranks, scoreAllMax)));
      assert.deepEqual(got, want, `case ${i}: ${slotCount} slots, depth ${depth}, score-all cap ${scoreAllMax}, order of at most ${orderMax ?? 'every'} foods, collecting ${collect ?? 'the default'}`);
      paths[want.total <= scoreAllMax ? 'all' : 'bound']++;
      // A slot of one list drives.
      const single = slots.findIndex((s) => s.length === 1);
      if (single >= 0) {
        assert.deepEqual(drivenPage(slots, slots[single]![0]!.list.rids, depth, ranks), want, `case ${i}, driven by slot ${single}`);
        paths.driven++;
      }
      compared += want.rids.length;
    }
    assert.ok(compared > 2000, `${compared} foods compared`);
    assert.ok(paths.driven > 50 && paths.all > 50 && paths.bound > 50, JSON.stringify(paths));
  });

  test('a bound order made in steps (a server once it listens) is the one made at once, and a search that needs it meanwhile makes it', () => {
    const random = seededRandom(7);
    const ridLimit = 3000;
    const fresh = (): FoodRanks => ({
      place: Uint32Array.from({ length: ridLimit }, (_, r) => (r % 5 === 1 ? 0xffffffff : r)),
      shape: Uint32Array.from({ length: ridLimit }, (_, r) => packShape([1 + (r % 3), r % 2, r % 4], 1 + (r % 7))),
      staticPart: Int16Array.from({ length: ridLimit }, () => -staticScore(Math.floor(random() * 12), Math.floor(random() * 128))),
    });
    const ranks = fresh();
    const bounds = [{ units: 1, named: 1 }, { units: 2, named: 2, placed: { together: [1, 1], mostOffset: [] } }, { units: 3, named: 1 }];
    const atOnce = bounds.map((most) => boundOrder({ ...ranks }, most));
    bounds.forEach((most, i) => {
      const stepped = { ...ranks };
      const steps = boundOrderSteps(stepped, most, 64);
      let taken = 0;
      let next = steps.next();
      for (; next.done !== true; next = steps.next()) taken++;
      assert.ok(taken > 3 * (ridLimit / 64), `bound ${i}: ${taken} steps of 64 foods`);
      assert.deepEqual(next.value, atOnce[i], `bound ${i}: the same order`);
      assert.equal(boundOrder(stepped, most), next.value, `bound ${i}: kept, not made again`);
      // A search makes the order while the steps are under way: theirs is dropped for it.
      const meanwhile = { ...ranks };
      const late = boundOrderSteps(meanwhile, most, 64);
      late.next();
      const made = boundOrder(meanwhile, most);
      let last = late.next();
      while (last.done !== true) last = late.next();
      assert.equal(last.value, made, `bound ${i}: the order the search made`);
    });
  });

  test('a bound order whose bounds span 255 or more has no bounds by rid', () => {
    const ridLimit = 300;
    const ranks: FoodRanks = {
      place: Uint32Array.from({ length: ridLimit }, (_, r) => r),
      shape: Uint32Array.from({ length: ridLimit }, () => packShape([1], 1)),
      staticPart: Int16Array.from({ length: ridLimit }, (_, r) => r),
    };
    const order = boundOrder(ranks, { units: 1, named: 1 });
    assert.equal(order.byRid, undefined);
    assert.equal(order.rids.length, ridLimit);
  });

  test('the bound order puts every food no later than one whose bound is better', () => {
    const random = seededRandom(99);
    const ridLimit = 5000;
    const place = Uint32Array.from({ length: ridLimit }, (_, r) => (r % 7 === 3 ? 0xffffffff : r));
    const shape = Uint32Array.from({ length: ridLimit }, () => packShape([1 + Math.floor(random() * 4), Math.floor(random() * 4), Math.floor(random() * 3)], 1 + Math.floor(random() * 9)));
    const staticPart = Int16Array.from({ length: ridLimit }, () => -staticScore(Math.floor(random() * 12), Math.floor(random() * 128)));
    const ranks: FoodRanks = { place, shape, staticPart };
    for (const [units, named] of [[1, 1], [1, 0], [2, 2], [2, 1], [3, 3], [3, 1], [4, 4], [7, 7], [7, 2]] as const) {
      const u = units <= 4 ? units : 255;
      const cover = ((units <= 4 ? named : 255) * 2 ** 24) + u * 0x010101;
      const bound = (rid: number): number => staticPart[rid]! - coverageBonus(cover, shape[rid]!);
      const foods = Array.from(place.keys()).filter((rid) => place[rid] !== 0xffffffff);
      const { rids, starts, bounds, rest, byRid } = boundOrder(ranks, { units, named });
      assert.deepEqual([...rids].sort((x, y) => x - y), foods, 'every food once, no rid without one');
      assert.equal(rest, undefined, 'nothing left out');
      // Each food's bound by rid, in a byte above the least: 255 where there is no food.
      assert.ok(byRid !== undefined, `units ${units}: bounds within 255 of each other`);
      for (let rid = 0; rid < ridLimit; rid++) {
        assert.equal(byRid.steps[rid], place[rid] === 0xffffffff ? 255 : bound(rid) - byRid.least, `units ${units}, rid ${rid}`);
      }
      assert.equal(starts[0], 0);
      assert.equal(starts[bounds.length], rids.length);
      for (let b = 0; b < bounds.length; b++) {
        if (b > 0) assert.ok(bounds[b - 1]! < bounds[b]!, `units ${units}: bounds ascend`);
        for (let k = starts[b]!; k < starts[b + 1]!; k++) {
          assert.ok(bound(rids[k]!) === bounds[b], `units ${units}, at ${k}: the food's own bound`);
          if (k > starts[b]!) assert.ok(rids[k - 1]! < rids[k]!, 'in rid order within a bound');
        }
      }
      // Cut short: the best bounds whole, as many foods as allowed (at least one bound), and the
      // first bound left out, below which every food is held and from which none is.
      for (const most of [1, 150, 1200]) {
        const cut = withEnv('FOODLOOKUP_BOUND_ORDER_MAX', most, () => boundOrder({ ...ranks }, { units, named }));
        const over = bounds.findIndex((_, b) => b > 0 && starts[b + 1]! > most);
        const held = over < 0 ? bounds.length : over;
        assert.deepEqual(Array.from(cut.bounds), Array.from(bounds.subarray(0, held)), `units ${units}, at most ${most}: the best bounds`);
        assert.deepEqual(Array.from(cut.starts), Array.from(starts.subarray(0, held + 1)));
        assert.deepEqual(Array.from(cut.rids), Array.from(rids.subarray(0, starts[held])));
        assert.equal(cut.rest, bounds[held]);
        assert.ok(cut.rids.length <= most || held === 1, `units ${units}: ${cut.rids.length} foods held, at most ${most}`);
        assert.equal(foods.filter((rid) => cut.rest === undefined || bound(rid) < cut.rest).length, cut.rids.length, 'every food of a better bound held');
      }
    }
  });
});

describe('inRankOrder: every match in the full order', () => {
  test('is the order ranksBefore gives, for whole scores in buckets and for scores it sorts by comparison', () => {
    const foods = fc.integer({ min: 1, max: 60 }).chain((n) => fc.record({
      // A permutation of places, and matches among the rids.
      places: fc.shuffledSubarray(Array.from({ length: n }, (_, i) => i), { minLength: n, maxLength: n }),
      picked: fc.array(fc.record({ rid: fc.integer({ min: 0, max: n - 1 }), tier: fc.integer({ min: 0, max: 1 }), score: fc.oneof(
        fc.integer({ min: -200, max: 200 }),
        fc.double({ min: -50, max: 50, noNaN: true }),
        fc.constantFrom(-1e9, 1e9),
      ) }), { maxLength: 80 }),
    }));
    fc.assert(fc.property(foods, ({ places, picked }) => {
      const matches = [...new Map(picked.map((m) => [m.rid, m])).values()];
      const place = Uint32Array.from(places);
      const byPlace = new Uint32Array(places.length);
      place.forEach((p, rid) => (byPlace[p] = rid));
      const expected = [...matches].sort((a, b) => (ranksBefore(a.tier, a.score, place[a.rid]!, b.tier, b.score, place[b.rid]!) ? -1 : 1)).map((m) => m.rid);
      const got = inRankOrder(matches.map((m) => m.rid), matches.map((m) => m.tier), matches.map((m) => m.score), place, byPlace);
      assert.deepEqual(got, expected);
    }), { seed: 23, numRuns: 300 });
  });
});

describe('groupedByBrand: pages grouped by brand', () => {
  /** Every match in rank order, grouped by brand in the order of each group's best, `perGroup` a group, then paged. */
  function reference(lists: SlotPostings[], accept: (rid: number) => boolean, perGroup: number, page: { offset: number; limit: number }, ranks: FoodRanks, brand: Uint32Array): { rids: number[]; total: number } {
    const matches: { rid: number; tier: number; score: number }[] = [];
    forEachMatch(lists, accept, ranks, (rid, tier, score) => matches.push({ rid, tier, score }));
    matches.sort((a, b) => (ranksBefore(a.tier, a.score, ranks.place[a.rid]!, b.tier, b.score, ranks.place[b.rid]!) ? -1 : 1));
    const groups = new Map<number, number[]>();
    for (const m of matches) {
      const group = groups.get(brand[m.rid]!) ?? [];
      groups.set(brand[m.rid]!, group);
      if (group.length < perGroup) group.push(m.rid);
    }
    const flat = [...groups.values()].flat();
    return { rids: flat.slice(page.offset, page.offset + page.limit), total: flat.length };
  }

  test('is the reference page, call after call, as the groups outgrow their first slots and the brands and group sizes change', () => {
    const random = seededRandom(41);
    const foods = 30_000;
    const place = new Uint32Array(foods);
    Array.from({ length: foods }, (_, i) => i).sort(() => random() - 0.5).forEach((p, rid) => (place[rid] = p));
    const ranks = plainRanks(place);
    // Successive searches of one process: thousands of groups (past the first 1,024 slots), then few, other sizes a group.
    for (const [brands, perGroup, offset, limit] of [[5_000, 3, 0, 20], [40, 1, 3, 10], [8_000, 2, 4_000, 50], [3, 20, 0, 100], [6_000, 7, 17, 20], [1_500, 3, 0, 20]] as const) {
      const brand = Uint32Array.from({ length: foods }, () => Math.floor(random() * brands));
      const rows = (density: number): [number, number, number][] => Array.from({ length: foods }, (_, rid) => rid)
        .filter(() => random() < density).map((rid) => [rid, -Math.floor(random() * 6), random() < 0.5 ? 1 : 0]);
      const lists = [encodePostings(rows(0.9)), encodePostings(rows(0.7))];
      const accept = (rid: number): boolean => rid % 11 !== 0;
      const page = { offset, limit };
      const got = groupedByBrand(lists, accept, perGroup, page, { ranks, brand, brandLimit: brands });
      assert.deepEqual(got, reference(lists, accept, perGroup, page, ranks, brand), `${brands} brands, ${perGroup} a group`);
    }
  });
});
