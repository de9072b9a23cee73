import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileFields, project, type FieldsContext, type FieldsResult } from '../../src/query/fields.js';

const FOOD_ONE: FieldsContext = { resource: 'food', collection: false, grouping: false };
const FOODS: FieldsContext = { resource: 'food', collection: true, grouping: false };
const FOODS_GROUPED: FieldsContext = { resource: 'food', collection: true, grouping: true };
const BRAND_ONE: FieldsContext = { resource: 'brand', collection: false, grouping: false };
const CATEGORIES: FieldsContext = { resource: 'category', collection: true, grouping: false };

const food = {
  foodId: 'f1', revisionId: 'r1', region: 'us',
  brand: { id: 'b1', name: 'Acme', region: 'us' },
  category: { id: 'c3', region: 'us', name: 'Hard', parent: 'c2', hierarchy: [{ id: 'c1', name: 'Dairy' }, { id: 'c2', name: 'Cheese' }, { id: 'c3', name: 'Hard' }], isLeaf: true },
  tags: [{ id: 't1', name: 'Organic' }, { id: 't2', name: 'Raw' }],
  name: 'Cheddar', otherNames: ['Mature'], classification: 'Cheese, cheddar', mass: 100,
  servings: [{ name: '100 g', scale: 1, type: 'mass' }, { name: '1 slice', scale: 0.28, type: 'mass' }],
  upcs: { '0123': { servingIndex: 1, quantity: 10 } },
  nutrients: { energy: 1686, fat: 33.1 },
};

function select(raw: string, ctx: FieldsContext = FOOD_ONE, record: object = food): Record<string, unknown> {
  const result = compileFields(raw, ctx);
  assert.ok(result.ok, JSON.stringify(result));
  return result.projection === null ? (record as Record<string, unknown>) : project(record, result.projection);
}

function error(raw: string, ctx: FieldsContext = FOOD_ONE): { message: string; details: string } {
  const result: FieldsResult = compileFields(raw, ctx);
  assert.equal(result.ok, false, `expected ${JSON.stringify(raw).slice(0, 60)} to be refused`);
  return (result as { error: { message: string; details: string } }).error;
}

const unknown = (path: string) => ({ message: "Unknown path in 'fields'", details: `Path: '${path}'` });

describe('fields: selecting', () => {
  test('a plain field name selects that field', () => {
    assert.deepEqual(select('name'), { name: 'Cheddar' });
  });

  test('comma-separated selectors select several fields, in the record order', () => {
    assert.deepEqual(select('nutrients,name,foodId'), { foodId: 'f1', name: 'Cheddar', nutrients: food.nutrients });
  });

  test('a/b selects a nested field', () => {
    assert.deepEqual(select('brand/name'), { brand: { name: 'Acme' } });
  });

  test('a(b,c) selects several nested fields', () => {
    assert.deepEqual(select('brand(name,region)'), { brand: { name: 'Acme', region: 'us' } });
  });

  test('selectors on a list apply to each element', () => {
    assert.deepEqual(select('servings/name'), { servings: [{ name: '100 g' }, { name: '1 slice' }] });
    assert.deepEqual(select('tags(name)'), { tags: [{ name: 'Organic' }, { name: 'Raw' }] });
  });

  test('paths nest to any depth', () => {
    assert.deepEqual(select('category/hierarchy/name'), { category: { hierarchy: [{ name: 'Dairy' }, { name: 'Cheese' }, { name: 'Hard' }] } });
    assert.deepEqual(select('category(hierarchy(id),isLeaf)'), { category: { hierarchy: [{ id: 'c1' }, { id: 'c2' }, { id: 'c3' }], isLeaf: true } });
  });

  test('nutrients and upcs take keys as their next segment', () => {
    assert.deepEqual(select('nutrients/energy'), { nutrients: { energy: 1686 } });
    assert.deepEqual(select('nutrients(energy,fat,caffeine)'), { nutrients: { energy: 1686, fat: 33.1 } });
    assert.deepEqual(select('upcs/0123/quantity'), { upcs: { '0123': { quantity: 10 } } });
    assert.deepEqual(select('upcs/9999'), { upcs: {} });
  });

  test('a known nutrient the food lacks leaves an empty object', () => {
    assert.deepEqual(select('nutrients/caffeine'), { nutrients: {} });
  });

  test('a top-level field the record lacks is simply absent', () => {
    assert.deepEqual(select('volume,name'), { name: 'Cheddar' });
  });

  test('selecting a field and a sub-field of it is a union: the whole field', () => {
    assert.deepEqual(select('brand/name,brand'), { brand: food.brand });
    assert.deepEqual(select('brand/name,brand/id'), { brand: { id: 'b1', name: 'Acme' } });
    assert.deepEqual(select('name,name'), { name: 'Cheddar' });
  });

  test('spaces around names are ignored', () => {
    assert.deepEqual(select(' name , brand( name ) '), { brand: { name: 'Acme' }, name: 'Cheddar' });
  });

  test('$summary and $detailed expand and mix with other selectors', () => {
    assert.deepEqual(Object.keys(select('$summary')), ['revisionId', 'brand', 'name', 'classification']);
    assert.deepEqual(Object.keys(select('$summary,mass')), ['revisionId', 'brand', 'name', 'classification', 'mass']);
    assert.deepEqual(Object.keys(select('$detailed')), ['foodId', 'revisionId', 'brand', 'tags', 'name', 'otherNames', 'classification', 'mass', 'servings', 'upcs', 'nutrients']);
    assert.deepEqual(Object.keys(select('$summary', FOODS)), ['revisionId', 'brand', 'name', 'classification']);
  });

  test('an empty fields is the same as none', () => {
    assert.deepEqual(compileFields('', FOOD_ONE), { ok: true, projection: null });
    assert.deepEqual(compileFields(undefined, FOOD_ONE), { ok: true, projection: null });
  });

  test('the projector does not change its input', () => {
    const copy = structuredClone(food);
    select('brand/name,servings/name');
    assert.deepEqual(food, copy);
  });
});

describe('fields: wrapped forms and metadata', () => {
  test('food(...) and food/x on a single record', () => {
    assert.deepEqual(select('food(name,mass)'), { name: 'Cheddar', mass: 100 });
    assert.deepEqual(select('food/brand/name'), { brand: { name: 'Acme' } });
    assert.deepEqual(compileFields('food', FOOD_ONE), { ok: true, projection: true });
  });

  test('foods(...) and foods/x on a collection', () => {
    assert.deepEqual(select('foods(name)', FOODS), { name: 'Cheddar' });
    assert.deepEqual(select('foods/name', FOODS), { name: 'Cheddar' });
    assert.deepEqual(select('foods($summary)', FOODS), select('$summary', FOODS));
    assert.deepEqual(select('categories/name', CATEGORIES, { id: 'c', name: 'X', region: 'us', hierarchy: [], isLeaf: true }), { name: 'X' });
  });

  test('the wrong wrapper is an unknown path', () => {
    assert.deepEqual(error('foods(name)', FOOD_ONE), unknown('foods'));
    assert.deepEqual(error('food(name)', FOODS), unknown('food'));
  });

  test('metadata is accepted on collections and changes nothing', () => {
    assert.deepEqual(compileFields('metadata', FOODS), { ok: true, projection: null });
    assert.deepEqual(select('metadata/total,name', FOODS), { name: 'Cheddar' });
    assert.deepEqual(error('metadata', FOOD_ONE), unknown('metadata'));
    assert.deepEqual(error('metadata/colour', FOODS), unknown('metadata/colour'));
  });

  test('grouping is a path only on grouped food lists', () => {
    assert.deepEqual(select('grouping/name', FOODS_GROUPED, { ...food, grouping: { name: 'Acme', id: 'b1' } }), { grouping: { name: 'Acme' } });
    assert.deepEqual(error('grouping', FOODS), unknown('grouping'));
    assert.deepEqual(error('grouping', FOOD_ONE), unknown('grouping'));
  });
});

describe('fields: unknown paths', () => {
  test('the full slash path of the first unknown selector', () => {
    assert.deepEqual(error('colour'), unknown('colour'));
    assert.deepEqual(error('name,servings/colour'), unknown('servings/colour'));
    assert.deepEqual(error('servings(name,colour)'), unknown('servings/colour'));
    assert.deepEqual(error('foods(colour)', FOODS), unknown('foods/colour'));
    assert.deepEqual(error('category/hierarchy/colour'), unknown('category/hierarchy/colour'));
  });

  test('a nutrient key outside the 22 is unknown', () => {
    assert.deepEqual(error('nutrients/vitaminZ'), unknown('nutrients/vitaminZ'));
    assert.deepEqual(error('nutrients(fat,sugars)'), unknown('nutrients/sugars'));
  });

  test('nothing can be selected inside a scalar or a list of strings', () => {
    assert.deepEqual(error('name/first'), unknown('name/first'));
    assert.deepEqual(error('otherNames/0'), unknown('otherNames/0'));
    assert.deepEqual(error('nutrients/fat/value'), unknown('nutrients/fat/value'));
  });

  test('$summary and $detailed are unknown outside foods, and cannot be nested into', () => {
    assert.deepEqual(error('$summary', BRAND_ONE), unknown('$summary'));
    assert.deepEqual(error('$detailed', CATEGORIES), unknown('$detailed'));
    assert.deepEqual(error('brand($summary)'), unknown('brand/$summary'));
  });

  test('field names are case-sensitive', () => {
    assert.deepEqual(error('Name'), unknown('Name'));
  });
});

describe('fields: syntax errors', () => {
  const invalid = (raw: string): void => {
    const e = error(raw);
    assert.equal(e.message, "Invalid 'fields'", raw);
    assert.match(e.details, /position \d+|characters/, raw);
  };

  test('empty parentheses', () => invalid('brand()'));
  test('an empty selector between commas', () => invalid('name,,brand'));
  test('a leading or trailing comma', () => {
    invalid(',name');
    invalid('name,');
  });
  test('a double slash and dangling slashes', () => {
    invalid('brand//name');
    invalid('brand/');
    invalid('/brand');
  });
  test('unbalanced parentheses', () => {
    invalid('brand(name');
    invalid('brand(name))');
    invalid('name)');
    invalid('(name)');
    invalid('brand(name)x');
    invalid('brand(name)/id');
  });
  test('the position is given', () => {
    assert.equal(error('name,,brand').details, 'Empty selector at position 6');
    assert.equal(error('brand()').details, 'Empty parentheses at position 7');
  });
  test('very deep nesting is refused quickly, without recursion trouble', () => {
    invalid('a('.repeat(10_000) + 'b' + ')'.repeat(10_000));
    invalid(Array.from({ length: 100 }, () => 'a').join('/'));
  });
  test('very long input is refused', () => {
    const e = error('name,'.repeat(5000) + 'name');
    assert.equal(e.message, "Invalid 'fields'");
  });
  test('unicode junk is an unknown path, not a crash', () => {
    assert.deepEqual(error('🧀'), unknown('🧀'));
    assert.deepEqual(error('na\u0000me'), unknown('na\u0000me'));
  });
});
