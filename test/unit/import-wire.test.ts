import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serialize, deserialize } from 'node:v8';
import { checkFood } from '../../src/domain/validate.js';
import { decodeItems, encodeItem, fromWireError, toWireError, type Slot, type WireItem } from '../../src/importers/import-wire.js';
import { foodRow } from '../../src/store/food-row.js';

const ID = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function food(over: Record<string, unknown>) {
  const checked = checkFood({
    foodId: ID(1), region: 'au', brand: ID(2), category: ID(3), tags: [ID(5), ID(4)], name: 'Crème Brûlée', classification: 'Dessert, Custard',
    otherNames: ['Burnt cream', 'Crema catalana'], description: 'Baked custard', note: 'a note', mass: 120,
    servings: [{ name: '100 g', scale: 1, type: 'mass' }, { name: '1 pot', scale: 1.2, type: 'serving' }],
    upcs: { '0123456789012': { servingIndex: 1, quantity: 1 } }, nutrients: { fat: 12.5, sugar: 20 },
    ...over,
  });
  assert.ok(checked.ok);
  return checked.value;
}

describe('import worker batches (import-wire.ts)', () => {
  test('every kind of record comes back as it was sent, in order, through structured clone', () => {
    const items: WireItem[] = [
      { kind: 'brand', value: { id: ID(2), name: 'Ça Va', region: 'au' }, source: { file: 'a.jsonl', line: 1 } },
      { kind: 'category', value: { id: ID(3), name: 'Custards', region: 'au', parent: ID(9) }, source: { file: 'a.json', record: 'categories[0]' } },
      { kind: 'category', value: { id: ID(9), name: 'Desserts', region: 'au' }, source: { file: 'a.json', record: 'categories[1]' } },
      { kind: 'tag', value: { id: ID(4), name: 'sweet' }, source: { file: 'a.jsonl', line: 3 } },
      { kind: 'food-row', row: foodRow(food({})), source: { file: 'a.jsonl', line: 4 } },
      { kind: 'food-row', row: foodRow(food({ revisionId: ID(77), tags: [], otherNames: undefined, description: undefined })), source: { file: 'b' } },
      { kind: 'invalid', reason: 'not valid JSON: Unexpected token', source: { file: 'a.jsonl', line: 6 } },
      { kind: 'skipped', reason: 'not sold in au or us', source: { file: 'FOOD.txt', line: 7 } },
    ];
    const slots: Slot[] = [];
    for (const item of items) encodeItem(item, slots);
    assert.ok(slots.every((slot) => slot === null || typeof slot !== 'object'), 'a batch is a flat list of plain values');
    assert.deepEqual(decodeItems(deserialize(serialize(slots)) as Slot[]), items);
  });

  test('a given revisionId is the revision and marked given; a derived one is the content hash', () => {
    const derived = foodRow(food({}));
    assert.equal(derived.revisionGiven, false);
    assert.equal(derived.revisionId, derived.contentHash);
    const given = foodRow(food({ revisionId: ID(77) }));
    assert.equal(given.revisionGiven, true);
    assert.equal(given.revisionId, ID(77));
    assert.equal(given.contentHash, derived.contentHash, 'the revisionId is not part of the content');
    assert.equal(derived.nameKey, 'creme brulee');
    assert.equal(derived.classificationKey, 'dessert, custard');
    assert.equal(derived.otherNamesFold, 'burnt cream \n crema catalana');
  });

  test('an error crosses with its message, name and code', () => {
    const error = Object.assign(new Error('line 3 is longer than 10 bytes'), { code: 'E_LONG' });
    const back = fromWireError(deserialize(serialize(toWireError(error))) as ReturnType<typeof toWireError>);
    assert.ok(back instanceof Error);
    assert.equal(back.message, error.message);
    assert.equal((back as { code?: string }).code, 'E_LONG');
    assert.equal(back.stack, error.stack);
    assert.equal(fromWireError(toWireError('a string thrown')).message, 'a string thrown');
  });
});
