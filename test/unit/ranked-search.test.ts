import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { groupedSearchPage, rankedSearchPage, type RankedStatements, type WordIndex } from '../../src/store/sqlite/ranked-search.js';
import type { FoodQuery } from '../../src/store/catalog-store.js';
import { encodePostings, type WordPostings } from '../../src/store/sqlite/postings.js';

/**
 * A word index over hand-made postings (rid, part, in name) of the ANYWHERE list. Every food is
 * in region us; food `rid` has brand `brands[rid]` and its place in name order is its rid.
 */
function index(words: Record<string, [number, number, number][]>, brands: number[] = [0, 1, 1, 1]): WordIndex {
  const postings = new Map<string, WordPostings>(Object.entries(words).map(([w, rows]) => [w, encodePostings(rows, rows.length)]));
  return {
    postings: (word, list) => (list === 0 ? postings.get(word) : undefined),
    place: Uint32Array.from(brands, (_, rid) => rid),
    test: (filters) => (filters.classifications ? 'sql' : filters.region === undefined ? undefined : (rid) => filters.region === 'us' && rid > 0),
    brandFacts: { brand: brands, brandLimit: Math.max(...brands) + 1 },
  };
}

const query = (extra: Partial<FoodQuery> = {}): FoodQuery => ({
  match: { query: 'raw', type: 'fts' }, order: { field: 'rank', direction: 'asc' }, limit: 2, offset: 0, ...extra,
});

type Recording = RankedStatements & { given?: [number, number][]; groupAsked?: [number, number, number] };

/**
 * Statements over a fixed candidate list; records what the page and group statements were
 * given. A tie group read from the index answers with rids from 1000 on.
 */
function statements(rows: [number, number, number][], total = rows.length, top?: RankedStatements['top']): Recording {
  const s: Recording = {
    candidates: (_n, _e, limit) => rows.slice(0, limit),
    page: (candidates, limit, offset) => {
      s.given = JSON.parse(candidates) as [number, number][];
      return s.given.slice(offset, offset + limit).map(([rid]) => rid);
    },
    group: (_n, _e, tier, score, limit) => {
      s.groupAsked = [tier, score, limit];
      return Array.from({ length: limit }, (_, i) => 1000 + i);
    },
    count: () => total,
    top,
  };
  return s;
}

describe('rankedSearchPage', () => {
  test('only unfiltered, ascending, ungrouped full-text pages take the shortcut', () => {
    const s = statements([[1, -2, 1]]);
    assert.ok(rankedSearchPage(query(), s));
    assert.equal(rankedSearchPage(query({ region: 'us' }), s), undefined);
    assert.equal(rankedSearchPage(query({ order: { field: 'rank', direction: 'desc' } }), s), undefined);
    assert.equal(rankedSearchPage(query({ match: { query: 'ra', type: 'prefix' } }), s), undefined);
    assert.equal(rankedSearchPage(query({ grouping: { by: 'brand', order: { field: 'rank', direction: 'asc' } } }), s), undefined);
    assert.equal(rankedSearchPage(query({ brands: { include: ['x'], exclude: [] } }), s), undefined);
    assert.equal(rankedSearchPage(query({ offset: 990, limit: 20 }), s), undefined);
  });

  test('equal (tier, score) share a tie group, so the foods table orders them by name', () => {
    const s = statements([[5, -3, 1], [6, -2, 1], [7, -2, 1], [8, -9, 0]]);
    const result = rankedSearchPage(query(), s);
    assert.deepEqual(s.given, [[5, 0], [6, 1], [7, 1], [8, 2]]);
    assert.deepEqual(result, { rids: [5, 6], total: 4 });
  });

  test('a tie that runs past the candidates is read whole from the index; a short list counts itself', () => {
    const tie = Array.from({ length: 80 }, (_, i): [number, number, number] => [i, -1, 1]);
    const whole = statements(tie, 500);
    assert.deepEqual(rankedSearchPage(query(), whole), { rids: [1000, 1001], total: 500 });
    assert.deepEqual(whole.groupAsked, [1, -1, 2]);
    // Ahead of the tie group, candidates are ordered by the page statement; the group fills the rest.
    const behind = statements([[7, -5, 1], ...tie], 500);
    assert.deepEqual(rankedSearchPage(query({ limit: 5 }), behind), { rids: [7, 1000, 1001, 1002, 1003], total: 500 });
    assert.deepEqual(behind.given, [[7, 0]]);
    assert.deepEqual(behind.groupAsked, [1, -1, 4]);
    const distinct = Array.from({ length: 80 }, (_, i): [number, number, number] => [i, -100 + i, 1]);
    assert.deepEqual(rankedSearchPage(query(), statements(distinct, 500)), { rids: [0, 1], total: 500 });
  });

  test('one word without * reads the importer\'s list when it has one and nothing filters', () => {
    const asked: unknown[] = [];
    const top: RankedStatements['top'] = {
      term: (word) => (word === 'raw' ? { matches: 9999 } : undefined),
      page: (list, word, from, to) => {
        asked.push([list, word, from, to]);
        return [42, 43];
      },
    };
    const s = { ...statements([[5, -3, 1]], 1, top), words: index({ raw: [[1, -2, 1], [2, -1, 0]] }) };
    assert.deepEqual(rankedSearchPage(query({ offset: 10, limit: 2 }), s), { rids: [42, 43], total: 9999 });
    assert.deepEqual(asked, [[0, 'raw', 10, 12]]);
    // Filtered: the list is of the unfiltered order, so the postings answer.
    assert.deepEqual(rankedSearchPage(query({ region: 'us' }), s), { rids: [1, 2], total: 2 });
    assert.equal(asked.length, 1);
  });

  test('words without * are ranked from the postings: every word must have some, a * word goes to FTS5', () => {
    const words = index({ raw: [[1, -2, 1], [2, -1, 0], [3, -5, 0]], egg: [[2, -3, 1], [3, -1, 1]] });
    const s = { ...statements([[5, -3, 1]], 1), words };
    // rid 2: tier 0 (raw not in its name), score -4; rid 3: tier 0, score -6: lower ranks first.
    assert.deepEqual(rankedSearchPage(query({ match: { query: 'raw egg', type: 'fts' }, limit: 5 }), s), { rids: [3, 2], total: 2 });
    assert.deepEqual(rankedSearchPage(query({ match: { query: 'raw rare', type: 'fts' } }), s), { rids: [], total: 0 });
    assert.deepEqual(rankedSearchPage(query({ match: { query: 'raw egg*', type: 'fts' } }), s), { rids: [5], total: 1 });
    // A filter the postings cannot test (classifications): the general plan.
    assert.equal(rankedSearchPage(query({ classifications: { values: ['x'], inverted: false } }), s), undefined);
    assert.equal(rankedSearchPage(query({ match: { query: 'raw*', type: 'fts' }, region: 'us' }), s), undefined);
  });

  test('grouped by brand with a small grouping-limit, in rank order: from the postings, filters included', () => {
    const words = index({ raw: [[1, -2, 1], [2, -1, 0], [3, -5, 0]] }, [0, 7, 8, 7]);
    const s = { ...statements([]), words };
    const rank = { field: 'rank', direction: 'asc' } as const;
    const grouped = (extra: Partial<FoodQuery>, grouping: FoodQuery['grouping']): FoodQuery => query({ limit: 10, ...extra, grouping });
    // Brand 7: rids 1 (tier 1) and 3; brand 8: rid 2. Groups by their best food: brand 7 first.
    assert.deepEqual(groupedSearchPage(grouped({}, { by: 'brand', order: rank, limit: 3 }), s), { rids: [1, 3, 2], total: 3 });
    assert.deepEqual(groupedSearchPage(grouped({ offset: 1 }, { by: 'brand', order: rank, limit: 1 }), s), { rids: [2], total: 2 });
    assert.deepEqual(groupedSearchPage(grouped({ region: 'us' }, { by: 'brand', order: rank, limit: 3 }), s), { rids: [1, 3, 2], total: 3 });
    assert.equal(groupedSearchPage(grouped({}, { by: 'classification', order: rank, limit: 3 }), s), undefined);
    assert.equal(groupedSearchPage(grouped({}, { by: 'brand', order: rank }), s), undefined);
    assert.equal(groupedSearchPage(grouped({}, { by: 'brand', order: rank, limit: 101 }), s), undefined);
    assert.equal(groupedSearchPage(grouped({}, { by: 'brand', order: { field: 'name', direction: 'asc' }, limit: 3 }), s), undefined);
    assert.equal(groupedSearchPage(grouped({ classifications: { values: ['x'], inverted: false } }, { by: 'brand', order: rank, limit: 3 }), s), undefined);
    assert.equal(groupedSearchPage(grouped({ match: { query: 'raw*', type: 'fts' } }, { by: 'brand', order: rank, limit: 3 }), s), undefined);
  });
});
