import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ListCache } from '../../src/search/search-index.js';
import { BASE_COVERS, BASE_PARTS, type GroupPostings, type SlotPostings } from '../../src/search/postings.js';
import { bitmapOf } from '../../src/search/rid-bitmaps.js';

/** A stored list as decodeGroupPostings makes it: rids and codes views of one blob, the shared parts and covers. */
function storedList(rids: readonly number[]): GroupPostings {
  const blob = new ArrayBuffer(rids.length * 5);
  const view = new Uint32Array(blob, 0, rids.length);
  view.set(rids);
  return { rids: view, codes: new Uint8Array(blob, rids.length * 4, rids.length).fill(1), parts: BASE_PARTS, covers: BASE_COVERS, forms: undefined };
}

const listBytes = (n: number): number => n * 5;

test('a dropped list stays readable until releaseDropped, then its memory and its bitmaps are freed', () => {
  const cache = new ListCache(listBytes(100), true);
  const a = cache.get('a', () => storedList(Array.from({ length: 100 }, (_, i) => i * 2)))!;
  const bitmap = bitmapOf(a, 200)!;
  cache.get('b', () => storedList(Array.from({ length: 100 }, (_, i) => i)));
  // Dropped by the load of b, but the search that loaded both may still read a.
  assert.equal(a.rids.length, 100);
  assert.equal(a.rids[99], 198);
  cache.releaseDropped();
  assert.equal(a.rids.length, 0, 'the dropped list is freed');
  assert.equal(a.codes.length, 0);
  assert.equal(bitmap.bits.length, 0, 'and its bitmap');
  // The shared constants of stored lists are untouched, and the held list is whole.
  assert.equal(BASE_PARTS.length, 64);
  assert.equal(BASE_COVERS.length, 64);
  const b = cache.get<SlotPostings>('b', () => assert.fail('b is held'))!;
  assert.equal(b.rids.length, 100);
  // Asked for again, a freed list is loaded anew.
  assert.equal(cache.get('a', () => storedList([1, 2, 3]))!.rids.length, 3);
});

test('a buffer another held list shares is not freed until that list is dropped too', () => {
  const cache = new ListCache(listBytes(100), true);
  const stored = cache.get('stored', () => storedList(Array.from({ length: 60 }, (_, i) => i)))!;
  // A list made of the stored one's foods and codes with covers of its own (slots.ts storedForChoices' view).
  const view: SlotPostings = { ...stored, covers: new Uint32Array(64) };
  cache.get('view', () => view);
  // The budget is 100 foods' bytes: the view's load (its rids and codes counted again) drops the stored list.
  cache.releaseDropped();
  assert.equal(stored.rids.length, 60, 'the view still holds the stored list\'s arrays');
  cache.get('other', () => storedList(Array.from({ length: 90 }, (_, i) => i)));
  cache.releaseDropped();
  assert.equal(view.rids.length, 0, 'freed once no held list uses them');
  assert.equal(view.covers.length, 0);
});

test('without release, dropped lists are left to the garbage collector', () => {
  const cache = new ListCache(listBytes(10), false);
  const a = cache.get('a', () => storedList(Array.from({ length: 10 }, (_, i) => i)))!;
  cache.get('b', () => storedList(Array.from({ length: 10 }, (_, i) => i)));
  cache.releaseDropped();
  assert.equal(a.rids.length, 10);
  assert.equal(cache.get('a', () => storedList([5]))!.rids.length, 1, 'a was dropped all the same');
});
