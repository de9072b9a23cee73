import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ListCache } from '../../src/search/search-index.js';
import { BASE_COVERS, BASE_PARTS, type SlotPostings } from '../../src/search/postings.js';

/** A list of `foods` entries: 5 bytes each (a u32 rid and a u8 code), as postingsBytes counts them. */
function list(foods: number): SlotPostings {
  return { rids: new Uint32Array(foods), codes: new Uint8Array(foods), parts: BASE_PARTS, covers: BASE_COVERS };
}

test('the list cache drops the least recently used lists past its bound, keeps the one just loaded, and loads a held list once', () => {
  const cache = new ListCache(100);
  const loads: string[] = [];
  const get = (key: string, foods: number): SlotPostings | undefined =>
    cache.get(key, () => {
      loads.push(key);
      return list(foods);
    });
  const a = get('a', 8);
  get('b', 8);
  assert.equal(cache.heldBytes, 80);
  // Held: answered without its loader, and now the most recently used.
  assert.equal(get('a', 8), a);
  assert.deepEqual(loads, ['a', 'b']);
  // 120 bytes: 'b', the least recently used, goes.
  get('c', 8);
  assert.equal(cache.heldBytes, 80);
  get('b', 8);
  assert.deepEqual(loads, ['a', 'b', 'c', 'b'], "'b' was dropped and loaded again");
  get('c', 8);
  assert.deepEqual(loads, ['a', 'b', 'c', 'b'], "'c' was still held");
  // A list larger than the whole bound is kept alone until the next load.
  get('huge', 30);
  assert.equal(cache.heldBytes, 150);
  get('d', 2);
  assert.equal(cache.heldBytes, 10);
  // A loader that finds nothing caches nothing.
  assert.equal(cache.get('none', () => undefined), undefined);
  assert.equal(cache.heldBytes, 10);
});
