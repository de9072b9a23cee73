import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryBlobs } from '../../src/search/blobs.js';
import { buildSearchData, type SearchFoodRow, type SearchSource } from '../../src/search/build.js';
import { SearchIndex } from '../../src/search/search-index.js';

const food = (rid: number, name: string): SearchFoodRow => ({
  rid, name, classification: '', otherNames: '', description: '', region: 'us', brand: 0, category: 0, servings: 1,
});

function source(ridLimit: number, foods: SearchFoodRow[]): SearchSource {
  return {
    ridLimit,
    foods: () => foods,
    nameOrder: () => [...foods].sort((a, b) => (a.name < b.name ? -1 : 1)).map((f) => f.rid),
    brands: () => [{ rid: 0, name: 'average all brands', generic: true }],
    tagFoods: () => [],
  };
}

test('the search data of a small catalogue loads, every food in name order', () => {
  const blobs = new MemoryBlobs();
  buildSearchData(source(3, [food(0, 'pears, raw'), food(2, 'apples, raw')]), blobs);
  const index = SearchIndex.load(blobs)!;
  assert.deepEqual(Array.from(index.names().byPlace), [2, 0]);
});

test('a food whose rid is not below the source\'s ridLimit is an error, not a food silently lost', () => {
  for (const rid of [2, 7, -1]) {
    assert.throws(() => buildSearchData(source(2, [food(0, 'pears, raw'), food(rid, 'apples, raw')]), new MemoryBlobs()),
      new RegExp(`food rid ${rid} is beyond the catalogue's 2`));
  }
});
