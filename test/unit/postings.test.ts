import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { codeBytes, decodeSlotPostings, encodeSlotPostings, type SlotPostings } from '../../src/search/postings.js';

/**
 * A list made at import (a prefix's rest or union, top-lists.ts) is stored and read back as it
 * was: the same foods, codes, parts and covers, its codes in the narrowest array its kinds
 * allow, as a list made at query time holds them.
 */

const list = fc.integer({ min: 1, max: 300 }).chain((kinds) =>
  fc.record({
    kinds: fc.constant(kinds),
    rids: fc.uniqueArray(fc.integer({ min: 0, max: 2_000_000 }), { maxLength: 200 }).map((r) => Uint32Array.from(r.sort((a, b) => a - b))),
    parts: fc.array(fc.integer({ min: -5000, max: 5000 }), { minLength: kinds, maxLength: kinds }),
    covers: fc.array(fc.integer({ min: 0, max: 0xffffffff }), { minLength: kinds, maxLength: kinds }),
    codes: fc.array(fc.integer({ min: 0, max: 2 * kinds - 1 }), { minLength: 200, maxLength: 200 }),
    // Where the blob's bytes start in the buffer a store hands back: not always aligned.
    shift: fc.integer({ min: 0, max: 7 }),
  }),
);

test('a stored slot list reads back as written, its codes as narrow as its kinds allow', () => {
  fc.assert(
    fc.property(list, ({ kinds, rids, parts, covers, codes, shift }) => {
      const written: SlotPostings = {
        rids,
        codes: Uint32Array.from(codes.slice(0, rids.length)),
        parts: Float64Array.from(parts),
        covers: Uint32Array.from(covers),
      };
      const bytes = encodeSlotPostings(written);
      const moved = new Uint8Array(bytes.length + shift);
      moved.set(bytes, shift);
      const read = decodeSlotPostings(moved.subarray(shift));
      assert.deepEqual(Array.from(read.rids), Array.from(rids));
      assert.deepEqual(Array.from(read.codes), Array.from(written.codes));
      assert.deepEqual(Array.from(read.parts), parts);
      assert.deepEqual(Array.from(read.covers), covers);
      assert.equal(read.codes.BYTES_PER_ELEMENT, codeBytes(kinds));
    }),
  );
});

test('codes take one byte while kinds number at most 127, two up to 32,767', () => {
  assert.equal(codeBytes(1), 1);
  assert.equal(codeBytes(127), 1);
  assert.equal(codeBytes(128), 2);
  assert.equal(codeBytes(32_767), 2);
  assert.equal(codeBytes(32_768), 4);
});
