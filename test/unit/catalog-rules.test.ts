import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkBrand, checkCategory, checkFood, checkTag } from '../../src/domain/validate.js';
import { canonicalFood, canonicalParts, deriveRevisionId } from '../../src/domain/revision.js';
import { foodBody } from '../../src/store/food-row.js';
import { ID_NAMESPACES, isUuid } from '../../src/domain/ids.js';
import { validate as uuidValidate, v5 as uuidV5 } from 'uuid';
import { NUTRIENT_KEYS } from '../../src/domain/nutrients.js';
import { random } from '../helpers/random-catalog.js';
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

test('isUuid accepts what uuid\'s validate accepts, in either case', () => {
  const next = random(7);
  const alphabet = '0123456789abcdefABCDEFgG-İK\u212a ';
  const samples = [
    ID, ID.toUpperCase(), '00000000-0000-0000-0000-000000000000', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
    '00000000-0000-0000-8000-000000000000', '00000000-0000-9000-8000-000000000000', '00000000-0000-4000-c000-000000000000',
    `${ID} `, ` ${ID}`, `${ID}\n`, ID.slice(1), `${ID}0`, '', 'x',
  ];
  for (let i = 0; i < 20_000; i++) {
    const chars = [...'00000000-0000-4000-8000-000000000000'];
    for (let j = Math.floor(next() * 3); j >= 0; j--) chars[Math.floor(next() * chars.length)] = alphabet[Math.floor(next() * alphabet.length)]!;
    samples.push(chars.join(''));
  }
  let accepted = 0;
  for (const sample of samples) {
    const expected = uuidValidate(sample.toLowerCase()) && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(sample);
    assert.equal(isUuid(sample), expected, JSON.stringify(sample));
    if (expected) accepted++;
  }
  assert.ok(accepted > 1000 && accepted < samples.length - 1000, `${accepted} of ${samples.length} accepted`);
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

/**
 * The canonical JSON every revision so far was derived from, in its generic form: keys sorted
 * at every level, undefined members left out, undefined array items empty. canonicalFood must
 * give the same text for every food, or stored revisions would change.
 */
function referenceCanonical(value: unknown): string | undefined {
  if (typeof value === 'string' || typeof value === 'number') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => referenceCanonical(item) ?? '').join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    const members = Object.keys(object).sort().filter((key) => object[key] !== undefined);
    return `{${members.map((key) => `${JSON.stringify(key)}:${String(referenceCanonical(object[key]))}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

describe('canonical food JSON', () => {
  const next = random(20261124);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const words = ['Apple', 'crème brûlée', 'a "quoted" \\ name', 'ünïcödé', '日本', 'tab\there', '', '😀 emoji'];
  const numbers = [0, 1, 0.1 + 0.2, 1e21, 1e-7, 123.456, 5e-324, 2 ** 53];
  const uuid = (): string => `${Math.floor(next() * 1e8).toString(16).padStart(8, '0')}-0000-4000-8000-${Math.floor(next() * 1e12).toString(16).padStart(12, '0')}`;
  const maybe = <T>(make: () => T): T | undefined => (next() < 0.5 ? make() : undefined);

  function randomFood(): Record<string, unknown> {
    const keys = [...NUTRIENT_KEYS].sort(() => next() - 0.5).slice(0, Math.floor(next() * 23));
    const servings = Array.from({ length: 1 + Math.floor(next() * 4) }, () => ({
      name: pick(words) || 'x', scale: pick(numbers.filter((n) => n > 0)), type: pick(['mass', 'volume', 'serving']),
    }));
    const codes = ['0123', '42', '7', 'abc-1', 'Z', '10', '9'].filter(() => next() < 0.3);
    return {
      foodId: uuid(), region: pick(['au', 'us']), brand: uuid(), category: uuid(),
      tags: Array.from({ length: Math.floor(next() * 4) }, uuid),
      name: pick(words) || 'n', classification: pick(words),
      otherNames: maybe(() => Array.from({ length: Math.floor(next() * 3) }, () => pick(words))),
      description: maybe(() => pick(words)), note: maybe(() => pick(words)),
      mass: maybe(() => pick(numbers)), volume: maybe(() => pick(numbers)),
      revisionId: maybe(uuid),
      servings,
      upcs: Object.fromEntries(codes.map((code) => [code, { servingIndex: Math.floor(next() * servings.length), quantity: pick(numbers.filter((n) => n > 0)) }])),
      nutrients: Object.fromEntries(keys.map((key) => [key, pick(numbers)])),
    };
  }

  test('is the generic sorted JSON of the food without revisionId, tags sorted, for 2,000 random foods', () => {
    for (let i = 0; i < 2000; i++) {
      const checked = checkFood(randomFood());
      assert.ok(checked.ok, checked.ok ? '' : checked.reason);
      const { revisionId: _given, ...content } = checked.value;
      assert.equal(canonicalFood(checked.value), referenceCanonical({ ...content, tags: [...content.tags].sort() }));
    }
  });

  test('a stored body, written from the same parts, is JSON of the food\'s own members, for 2,000 random foods', () => {
    for (let i = 0; i < 2000; i++) {
      const checked = checkFood(randomFood());
      assert.ok(checked.ok);
      const f = checked.value;
      const first = f.servings.findIndex((s) => s.isDefault === true);
      const servings = f.servings.map((s, at) => ({ name: s.name, scale: s.scale, type: s.type, isDefault: at === Math.max(0, first) }));
      const members = {
        otherNames: f.otherNames, description: f.description, note: f.note, mass: f.mass, volume: f.volume, servings,
        defaultServing: servings[Math.max(0, first)], upcs: f.upcs, nutrients: f.nutrients,
      };
      assert.deepEqual(JSON.parse(foodBody(canonicalParts(f))), JSON.parse(JSON.stringify(members)));
    }
  });

  test('the revision of a fixed food is the one it has always had', () => {
    const checked = checkFood(food({
      tags: ['00000000-0000-4000-8000-000000000003', '00000000-0000-4000-8000-000000000002'],
      otherNames: ['Malus'], description: 'Crisp', mass: 100,
      upcs: { '0123': { servingIndex: 0, quantity: 2 } }, nutrients: { sodium: 1, energy: 218.5, fat: 0.2 },
    }));
    assert.ok(checked.ok);
    assert.equal(deriveRevisionId(checked.value), '04b3da43-6b11-57f0-a62e-17628934f416');
  });

  test('is uuid v5 of the canonical JSON, for random foods and for texts longer than the hashing buffer', () => {
    const v5 = (food: CatalogFood): string => uuidV5(canonicalFood(food), ID_NAMESPACES.revision);
    for (let i = 0; i < 500; i++) {
      const checked = checkFood(randomFood());
      assert.ok(checked.ok);
      assert.equal(deriveRevisionId(checked.value), v5(checked.value));
    }
    // Multi-byte characters across the 64 KiB buffer's end, then a short food after the long ones.
    for (const length of [65_000, 65_512, 65_530, 70_000, 10]) {
      const checked = checkFood(food({ description: 'é€𝄞x'.repeat(length / 4) }));
      assert.ok(checked.ok);
      assert.equal(deriveRevisionId(checked.value), v5(checked.value), `description of ${length} characters`);
    }
  });
});
