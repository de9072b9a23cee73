import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rankedSearchPage, type RankedStatements } from '../../src/store/sqlite/ranked-search.js';
import type { FoodQuery } from '../../src/store/catalog-store.js';

const query = (extra: Partial<FoodQuery> = {}): FoodQuery => ({
  match: { query: 'raw', type: 'fts' }, order: { field: 'rank', direction: 'asc' }, limit: 2, offset: 0, ...extra,
});

/** Statements over a fixed candidate list; records what the page statement was given. */
function statements(rows: [number, number, number][], total = rows.length): RankedStatements & { given?: [number, number][] } {
  const s: RankedStatements & { given?: [number, number][] } = {
    candidates: (_n, _e, limit) => rows.slice(0, limit),
    page: (candidates, limit, offset) => {
      s.given = JSON.parse(candidates) as [number, number][];
      return s.given.slice(offset, offset + limit).map(([rid]) => rid);
    },
    count: () => total,
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

  test('a tie that runs past the candidates falls back; a short list counts itself', () => {
    const tie = Array.from({ length: 80 }, (_, i): [number, number, number] => [i, -1, 1]);
    assert.equal(rankedSearchPage(query(), statements(tie, 500)), undefined);
    const distinct = Array.from({ length: 80 }, (_, i): [number, number, number] => [i, -100 + i, 1]);
    assert.deepEqual(rankedSearchPage(query(), statements(distinct, 500)), { rids: [0, 1], total: 500 });
  });
});
