import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkBrand, checkCategory, checkFood, checkTag } from '../../src/domain/validate.js';
import { deriveRevisionId } from '../../src/domain/revision.js';
import type { CatalogFood } from '../../src/domain/records.js';

const ID = '00000000-0000-4000-8000-000000000001';
const food = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  foodId: ID, region: 'us', brand: ID, category: ID, tags: [], name: 'Apple', classification: 'Fruit',
  servings: [{ name: '100 g', scale: 1, type: 'mass' }], ...over,
});

function reason(result: { ok: boolean; reason?: string }): string {
  assert.equal(result.ok, false);
  return result.reason ?? '';
}

describe('record rules of contract C4', () => {
  test('a valid food passes and ids are lower-cased', () => {
    const result = checkFood(food({ foodId: ID.toUpperCase() }));
    assert.ok(result.ok);
    assert.equal(result.value.foodId, ID);
  });

  test('ids must be uuids', () => {
    assert.match(reason(checkFood(food({ foodId: 'x' }))), /foodId must be a uuid/);
    assert.match(reason(checkBrand({ id: 'x', name: 'B', region: 'us' })), /brand.id must be a uuid/);
    assert.match(reason(checkFood(food({ tags: ['x'] }))), /tags\[0\] must be a uuid/);
  });

  test('region is au or us', () => {
    assert.match(reason(checkBrand({ id: ID, name: 'B', region: 'eu' })), /region must be "au" or "us"/);
  });

  test('at least one serving, of type mass, volume or serving', () => {
    assert.match(reason(checkFood(food({ servings: [] }))), /at least one serving/);
    assert.match(reason(checkFood(food({ servings: [{ name: 'x', scale: 1, type: 'cup' }] }))), /type must be one of mass, volume, serving/);
    assert.match(reason(checkFood(food({ servings: [{ name: 'x', scale: 0, type: 'mass' }] }))), /scale must be > 0/);
  });

  test('upcs point at an existing serving', () => {
    assert.match(reason(checkFood(food({ upcs: { '123': { servingIndex: 1, quantity: 1 } } }))), /servingIndex must point at an existing serving/);
    assert.ok(checkFood(food({ upcs: { '123': { servingIndex: 0, quantity: 1 } } })).ok);
  });

  test('nutrient keys are the 22 and values finite numbers ≥ 0', () => {
    assert.match(reason(checkFood(food({ nutrients: { vitaminZ: 1 } }))), /unknown nutrient key "vitaminZ"/);
    assert.match(reason(checkFood(food({ nutrients: { fat: -1 } }))), /fat must be ≥ 0/);
    assert.match(reason(checkFood(food({ nutrients: { fat: '1' } }))), /fat must be a finite number/);
    assert.ok(checkFood(food({ nutrients: { fat: 0, caffeine: 12.5 } })).ok);
  });

  test('wrong types are named', () => {
    assert.match(reason(checkFood(food({ name: 5 }))), /food.name must be a string/);
    assert.match(reason(checkFood(food({ otherNames: 'x' }))), /otherNames must be a list of strings/);
    assert.match(reason(checkFood('food')), /food must be an object/);
    assert.match(reason(checkCategory({ id: ID, name: 'C', region: 'us', parent: ID })), /parent is the category itself/);
    assert.match(reason(checkTag({ id: ID, name: '' })), /tag.name must not be empty/);
  });
});

describe('revision derivation', () => {
  const base = (): CatalogFood => {
    const checked = checkFood(food({ tags: ['00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000003'] }));
    assert.ok(checked.ok);
    return checked.value;
  };

  test('equal content gives the same revision; tag order does not count', () => {
    const a = base();
    assert.equal(deriveRevisionId(a), deriveRevisionId({ ...a }));
    assert.equal(deriveRevisionId(a), deriveRevisionId({ ...a, tags: [...a.tags].reverse() }));
  });

  test('any change of content changes the revision', () => {
    const a = base();
    const revision = deriveRevisionId(a);
    assert.notEqual(deriveRevisionId({ ...a, name: 'Pear' }), revision);
    assert.notEqual(deriveRevisionId({ ...a, nutrients: { fat: 1 } }), revision);
    assert.notEqual(deriveRevisionId({ ...a, servings: [{ name: '100 g', scale: 1.5, type: 'mass' }] }), revision);
    assert.notEqual(deriveRevisionId({ ...a, brand: '00000000-0000-4000-8000-000000000009' }), revision);
  });

  test('a given revisionId does not enter the derivation', () => {
    const a = base();
    assert.equal(deriveRevisionId({ ...a, revisionId: '00000000-0000-4000-8000-000000000009' }), deriveRevisionId(a));
  });

  test('the revision is a uuid', () => {
    assert.match(deriveRevisionId(base()), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
