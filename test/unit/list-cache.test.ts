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

test('what else the cache keeps counts the bytes it is said to hold, and lists and it make room for each other', () => {
  const cache = new ListCache(100);
  let made = 0;
  const members = (): { rids: Uint32Array } | undefined =>
    cache.keep('members', () => {
      made++;
      return { rids: new Uint32Array(15) };
    }, (m) => m.rids.byteLength);
  const kept = members();
  assert.equal(cache.heldBytes, 60);
  assert.equal(members(), kept, 'held: made once');
  cache.get('a', () => list(8));
  assert.equal(cache.heldBytes, 100);
  // A list past the bound drops the least recently used: what was kept.
  cache.get('b', () => list(2));
  assert.equal(cache.heldBytes, 50);
  members();
  assert.equal(made, 2, 'made again once dropped');
});
