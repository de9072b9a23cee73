import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sortedInSteps } from '../../src/store/turns.js';
import { compareCodePoints } from '../../src/domain/text.js';

/** Runs the sort to its end; its order and how many times it yielded. */
function run(steps: Generator<void, Uint32Array, void>): { order: number[]; yields: number } {
  let yields = 0;
  for (;;) {
    const next = steps.next();
    if (next.done === true) return { order: [...next.value], yields };
    yields++;
  }
}

test('sortedInSteps is a stable sort (ties in index order), yielding every `stepCompares` comparisons', () => {
  fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 300 }), fc.integer({ min: 1, max: 40 }), (values, step) => {
    let compares = 0;
    const { order, yields } = run(sortedInSteps(values.length, (a, b) => {
      compares++;
      return values[a]! - values[b]!;
    }, step));
    assert.deepEqual(order, values.map((_, i) => i).sort((a, b) => values[a]! - values[b]! || a - b));
    assert.equal(yields, Math.floor(compares / step));
    assert.ok(compares <= values.length * Math.max(1, Math.ceil(Math.log2(Math.max(1, values.length)))), `${compares} comparisons for ${values.length}`);
  }));
});

test('classifications by code point: the order of the sort the PostgreSQL store did in one piece', () => {
  // Astral characters sort after U+E000-U+FFFF by code point, before them by UTF-16 unit.
  const names = ['Cheese', 'cheese', '\u{1F600} emoji', '\uFF21 wide', 'Ächt', 'Acht', '', 'cheese', 'Z'];
  const { order } = run(sortedInSteps(names.length, (a, b) => compareCodePoints(names[a]!, names[b]!), 2));
  assert.deepEqual(order, names.map((_, i) => i).sort((a, b) => compareCodePoints(names[a]!, names[b]!)));
  assert.deepEqual(order.map((i) => names[i]), ['', 'Acht', 'Cheese', 'Z', 'cheese', 'cheese', 'Ächt', '\uFF21 wide', '\u{1F600} emoji']);
});
