import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serialize, deserialize } from 'node:v8';
import { BatchReader, BatchWriter, type Slot } from '../../src/importers/batch-bytes.js';
import { checkFood } from '../../src/domain/validate.js';
import { decodeItems, encodeItem, fromWireError, toWireError, type WireItem } from '../../src/importers/import-wire.js';
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
  test('every kind of record comes back as it was sent, in order, its bytes transferred as postMessage does', () => {
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
    const batch = new BatchWriter();
    for (const item of items) encodeItem(item, batch);
    const bytes = batch.take();
    const received = structuredClone(bytes, { transfer: [bytes.buffer] });
    assert.equal(bytes.byteLength, 0, 'the sender\'s view is detached: the memory moved, not copied');
    assert.deepEqual([...decodeItems(received)], items);
  });

  test('a batch\'s values come back exactly: text of every script, long text, numbers, booleans and nulls', () => {
    const long = 'é€𝄞'.repeat(300_000); // 2.7 MB of UTF-8 in a batch that starts at 1 MiB
    const values: Slot[] = ['', 'plain', 'Crème Brûlée 🍮', long, 0, -0.5, 1e300, Number.MAX_SAFE_INTEGER, true, false, null, 'after'];
    const batch = new BatchWriter();
    batch.push(...values);
    const reader = new BatchReader(batch.take());
    const back: Slot[] = [];
    while (reader.more) back.push(reader.next());
    assert.deepEqual(back, values);
  });

  test('a buffer sent back is written over by the next batch, which reads as sent', () => {
    const spare: ArrayBuffer[] = [];
    const batch = new BatchWriter(spare);
    batch.push('first batch, a longer text than the next', 1);
    const first = batch.take();
    // Sent back with the acknowledgement while the second batch is being written.
    spare.push(first.buffer);
    batch.push('second');
    batch.take();
    batch.push('x');
    batch.push(2);
    const third = batch.take();
    assert.ok(third.buffer === first.buffer, 'the third batch is written over the buffer sent back');
    const reader = new BatchReader(third);
    assert.deepEqual([reader.next(), reader.next(), reader.more], ['x', 2, false]);
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
