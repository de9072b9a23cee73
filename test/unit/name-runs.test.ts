import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { NameRuns, type NamedFood } from '../../src/store/postgres/name-runs.js';
import { compareCodePoints } from '../../src/domain/text.js';

/** The order the catalogue's name index has: (name, id) by code point. */
function byNameAndId(foods: readonly NamedFood[]): number[] {
  return [...foods].sort((a, b) => compareCodePoints(a.name, b.name) || compareCodePoints(a.id, b.id)).map((f) => f.rid);
}

// Names that begin one another, equal names, a tab and other characters below U+D800; and,
// sometimes, characters where UTF-16 and code point order part.
const plain = fc.constantFrom('a', 'b', 'ab', ' ', ',', '\t', 'é', '\u4e2d', 'z');
const high = fc.constantFrom('\uE000', '\uFFFD', '\u{1F34E}');
const name = (withHigh: boolean): fc.Arbitrary<string> =>
  fc.array(withHigh ? fc.oneof({ weight: 5, arbitrary: plain }, { weight: 1, arbitrary: high }) : plain, { maxLength: 5 }).map((cs) => cs.join(''));

function foodsOf(names: readonly string[], firstRid: number): NamedFood[] {
  // Unique ids, not in rid order.
  return names.map((n, i) => ({ rid: firstRid + i, name: n, id: `id-${String((i * 7919) % 100_003).padStart(6, '0')}-${firstRid + i}` }));
}

test('runs sorted as foods arrive, merged with the foods carried over: the order of (name, id) by code point', () => {
  fc.assert(fc.property(fc.array(name(false), { maxLength: 80 }), fc.array(name(false), { maxLength: 30 }), fc.integer({ min: 1, max: 9 }), (written, kept, length) => {
    const fresh = foodsOf(written, 1000);
    const old = foodsOf(kept, 1);
    const runs = new NameRuns(length);
    for (const food of fresh) runs.add(food);
    assert.deepEqual(runs.order(old), byNameAndId([...old, ...fresh]));
  }), { numRuns: 500 });
});

test('no order from runs once a name or id has a code unit from U+D800 on (the caller orders by code point)', () => {
  fc.assert(fc.property(fc.array(name(true), { minLength: 1, maxLength: 40 }), fc.boolean(), (names, carried) => {
    const foods = foodsOf(names, 1);
    const runs = new NameRuns(4);
    for (const food of carried ? [] : foods) runs.add(food);
    const order = runs.order(carried ? foods : []);
    const needsCodePoints = names.some((n) => /[\uD800-\uFFFF]/.test(n));
    if (needsCodePoints) assert.equal(order, undefined);
    else assert.deepEqual(order, byNameAndId(foods));
  }), { numRuns: 300 });
});
