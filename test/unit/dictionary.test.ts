import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CatalogDictionary } from '../../src/store/dictionary.js';
import { brandRowToBrand, categoryRowToCategory, tagRowToTag, type BrandRow, type CategoryRow, type TagRow } from '../../src/store/record-rows.js';

const brands: (BrandRow & { rid: number })[] = [
  { rid: 0, id: '0f9a8c3e-58a1-5b2c-9d1e-2a3b4c5d6e7f', name: 'Crème "Fraîche" \\ Co 🧀', region: 'au', updated_at: 1_700_000_000_123 },
  { rid: 7, id: '1e2d3c4b-5a69-5788-8796-a5b4c3d2e1f0', name: 'USDA', region: 'us', updated_at: 1 },
];
const categories: (CategoryRow & { rid: number })[] = [
  { rid: 0, id: 'c0000000-0000-5000-8000-000000000001', name: 'Dairy', region: 'us', parent_id: null, is_leaf: 0, hierarchy: '[]', updated_at: 5 },
  {
    rid: 1, id: 'c0000000-0000-5000-8000-000000000002', name: 'Cheese — hard', region: 'us', parent_id: 'c0000000-0000-5000-8000-000000000001',
    is_leaf: 1, hierarchy: '[{"id":"c0000000-0000-5000-8000-000000000001","name":"Dairy"}]', updated_at: 2_000_000_000_000,
  },
];
const tags: (TagRow & { rid: number })[] = [
  { rid: 3, id: 't0000000-0000-5000-8000-000000000001', name: 'organic', name_key: 'organic', updated_at: 9 },
  { rid: 1, id: 't0000000-0000-5000-8000-000000000002', name: 'vegan', name_key: 'vegan', updated_at: 9 },
];

test('the dictionary answers brands and categories as the rows make them, as objects, stamped, and as the JSON a food embeds', () => {
  const dictionary = new CatalogDictionary({ version: 1, lastModified: 0 }, { brands, categories, tagsInNameOrder: tags });
  for (const row of brands) {
    const brand = brandRowToBrand(row);
    assert.deepEqual(dictionary.brand(row.id), brand);
    assert.deepEqual(dictionary.stampedBrand(row.id), { value: brand, lastModified: row.updated_at });
    assert.equal(dictionary.brandJson(row.id), JSON.stringify(brand));
    assert.equal(dictionary.brandRid(row.id), row.rid);
  }
  for (const row of categories) {
    const category = categoryRowToCategory(row);
    assert.deepEqual(dictionary.category(row.id), category);
    assert.deepEqual(dictionary.stampedCategory(row.id), { value: category, lastModified: row.updated_at });
    assert.equal(dictionary.categoryJson(row.id), JSON.stringify(category));
  }
  assert.deepEqual(dictionary.tags([tags[0]!.id]), [tagRowToTag(tags[0]!)]);
  assert.deepEqual(dictionary.limits, { brand: 8, category: 2, tag: 4 });
  // By rid, as a page's foods find them from the search data's facts.
  for (const row of brands) assert.equal(dictionary.brandJsonOfRid(row.rid), JSON.stringify(brandRowToBrand(row)));
  for (const row of categories) assert.equal(dictionary.categoryJsonOfRid(row.rid), JSON.stringify(categoryRowToCategory(row)));
  for (const rid of [1, 2, 6, 8, -1, 1e9]) assert.equal(dictionary.brandJsonOfRid(rid), undefined, `brand rid ${rid}`);
  assert.equal(dictionary.categoryJsonOfRid(2), undefined);
  // A food's tag rids in any order give its tags in name order; a rid of no tag is left out.
  const both = `[${tags.map((t) => JSON.stringify(tagRowToTag(t))).join(',')}]`;
  assert.equal(dictionary.tagsJsonOfRids([9, 1, 3, 0], 1, 3), both);
  assert.equal(dictionary.tagsJsonOfRids([3, 1], 0, 2), both);
  assert.equal(dictionary.tagsJsonOfRids([1], 0, 1), `[${JSON.stringify(tagRowToTag(tags[1]!))}]`);
  assert.equal(dictionary.tagsJsonOfRids([0, 2], 0, 2), '[]');
  assert.equal(dictionary.tagsJsonOfRids([3], 0, 0), '[]');
  // By ids, as a food row stores them: the same lists.
  assert.equal(dictionary.tagsJson(JSON.stringify([tags[1]!.id, 'nope', tags[0]!.id])), both);
  assert.equal(dictionary.tagsJson(JSON.stringify([tags[1]!.id, tags[0]!.id])), both);
  assert.equal(dictionary.tagsJson('[]'), '[]');
  // Unknown ids, and keys an object would answer from its prototype, are not records.
  for (const id of ['nope', '__proto__', 'constructor', 'toString']) {
    assert.equal(dictionary.brand(id), undefined);
    assert.equal(dictionary.stampedCategory(id), undefined);
    assert.equal(dictionary.brandJson(id), undefined);
    assert.equal(dictionary.categoryJson(id), undefined);
  }
});
