import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BITMAP_DENSITY, bitmapOf, rankOf } from '../../src/search/rid-bitmaps.js';
import type { SlotPostings } from '../../src/search/postings.js';

/** A list of these rids (ascending, distinct), every one in its food's name. */
function listOf(rids: readonly number[]): SlotPostings {
  return { rids: Uint32Array.from(rids), codes: new Uint8Array(rids.length).fill(1), parts: new Float64Array(1), covers: new Uint32Array(1) };
}

test('rankOf gives every rid of a bitmap its index in the list, across the rank index blocks', () => {
  fc.assert(fc.property(
    // Up to 40 words of rids: several blocks of the rank index, and a partial last block.
    fc.integer({ min: 1, max: 40 * 32 }).chain((ridLimit) => fc.tuple(fc.constant(ridLimit), fc.uniqueArray(fc.integer({ min: 0, max: ridLimit - 1 }), {
      minLength: Math.ceil(ridLimit / BITMAP_DENSITY), maxLength: ridLimit,
    }))),
    ([ridLimit, unsorted]) => {
      const rids = [...unsorted].sort((a, b) => a - b);
      const bitmap = bitmapOf(listOf(rids), ridLimit);
      assert.ok(bitmap !== undefined, 'a list of 1/16 of the foods has a bitmap');
      rids.forEach((rid, i) => assert.equal(rankOf(bitmap, rid), i, `rid ${rid}`));
    },
  ), { numRuns: 300 });
});

test('a dense bitmap of every rid below 1,000,000 ranks the last word of each block', () => {
  const ridLimit = 1_000_000;
  const rids = Array.from({ length: ridLimit }, (_, i) => i);
  const bitmap = bitmapOf(listOf(rids), ridLimit)!;
  for (const rid of [0, 31, 32, 255, 256, 257, 8191, 8192, 999_999]) assert.equal(rankOf(bitmap, rid), rid);
});
