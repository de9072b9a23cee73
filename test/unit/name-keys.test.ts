import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MemoryBlobs } from '../../src/search/blobs.js';
import { NameKeys, writeNameKeys } from '../../src/search/name-keys.js';

/** Code point order, as PostgreSQL's C collation orders name_key (and SQLite's BINARY). */
function byCodePoint(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

const MAX_CHAR = String.fromCodePoint(0x10ffff);
// Letters around the places where UTF-16 and code point order part (U+D800 on), and NUL for keys.
const letter = fc.constantFrom('a', 'b', 'é', ' ', 'z', '\u00ff', '\u4e2d', '\uffff', '\u{1f34e}', '\u{10ffff}');
const name = fc.array(letter, { maxLength: 6 }).map((cs) => cs.join(''));
const key = fc.tuple(fc.array(fc.oneof(letter, fc.constant('\0')), { maxLength: 6 }), fc.boolean())
  .map(([cs, end]) => cs.join('') + (end ? MAX_CHAR : ''));

test('firstPlaceFrom is the place of the first name >= the key in code point order, for any key', () => {
  fc.assert(fc.property(fc.array(name, { maxLength: 60 }), fc.array(key, { minLength: 1, maxLength: 20 }), (unsorted, keys) => {
    const names = [...unsorted].sort(byCodePoint);
    const blobs = new MemoryBlobs();
    writeNameKeys(names, blobs);
    const loaded = NameKeys.load(blobs)!;
    for (const k of [...keys, ...names]) {
      const expected = names.filter((n) => byCodePoint(n, k) < 0).length;
      assert.equal(loaded.firstPlaceFrom(k), expected, JSON.stringify({ names, k }));
    }
  }), { numRuns: 400 });
});

test('search data written without the names has none', () => {
  assert.equal(NameKeys.load(new MemoryBlobs()), undefined);
});
