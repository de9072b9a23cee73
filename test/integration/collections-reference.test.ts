// Property-style check: random filters over a random catalogue, compared with a plain
// in-memory reference of contract C3 (test/helpers/reference.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importInto } from '../helpers/cli.js';
import { tempDir } from '../helpers/paths.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { random, randomCatalog, type RCatalog } from '../helpers/random-catalog.js';
import { byName, foodPasses, type FoodFilterSpec, type IdFilterSpec, type ListSpec } from '../helpers/reference.js';

const SEED = 20261122;
const catalog: RCatalog = randomCatalog(SEED);
let server: TestServer;
let cleanup: () => void;

before(async () => {
  const tmp = tempDir();
  cleanup = tmp.cleanup;
  const file = join(tmp.dir, 'random.json');
  writeFileSync(file, JSON.stringify(catalog));
  await importInto(join(tmp.dir, 'random.db'), 'catalog', [file]);
  server = await startTestServer(join(tmp.dir, 'random.db'));
});

after(async () => {
  await server.close();
  cleanup();
});

const rnd = random(SEED + 1);
const sample = <T>(list: readonly T[], max: number): T[] =>
  list.filter(() => rnd() < max / Math.max(list.length, 1)).slice(0, max);

function idFilter(ids: readonly string[]): IdFilterSpec {
  return { include: sample(ids, 2), exclude: sample(ids, 1) };
}
function listSpec(values: readonly string[]): ListSpec {
  const chosen = sample(values, 3);
  return { values: chosen.length > 0 ? chosen : [values[0]!], inverted: rnd() < 0.4 };
}
const idText = (f: IdFilterSpec): string => [...f.include, ...f.exclude.map((e) => `!${e}`)].join(',');
const listText = (l: ListSpec, quote = false): string =>
  (l.inverted ? '!' : '') + l.values.map((v) => (quote ? `"${v.replace(/"/g, '\\"')}"` : v)).join(',');

function randomFilters(): FoodFilterSpec {
  const f: FoodFilterSpec = {};
  if (rnd() < 0.4) f.region = rnd() < 0.5 ? 'au' : 'us';
  if (rnd() < 0.4) f.brands = idFilter(catalog.brands.map((b) => b.id));
  if (rnd() < 0.4) f.tags = idFilter(catalog.tags.map((t) => t.id));
  if (rnd() < 0.4) f.categories = listSpec(catalog.categories.map((c) => c.id));
  if (rnd() < 0.3) f.classifications = listSpec([...new Set(catalog.foods.map((x) => x.classification))]);
  return f;
}

function params(f: FoodFilterSpec, brandsAs: 'id' | 'list' = 'id'): URLSearchParams {
  const p = new URLSearchParams();
  if (f.region) p.set('region', f.region);
  if (f.brands) {
    if (brandsAs === 'id') p.set('brands', idText(f.brands));
    else p.set('brands', (f.brands.exclude.length > 0 ? '!' : '') + [...f.brands.include, ...f.brands.exclude].join(','));
  }
  if (f.tags) p.set('tags', idText(f.tags));
  if (f.categories) p.set('categories', listText(f.categories));
  if (f.classifications) p.set('classifications', listText(f.classifications, true));
  return p;
}

async function all<T>(path: string, key: string): Promise<{ total: number; items: T[] }> {
  const items: T[] = [];
  let total = 0;
  for (let offset = 0; ; offset += 100) {
    const res = await server.get(`${path}${path.includes('?') ? '&' : '?'}limit=100&offset=${offset}`);
    assert.equal(res.status, 200, res.text);
    const body = res.body as { metadata: { total: number }; [k: string]: unknown };
    total = body.metadata.total;
    const page = body[key] as T[];
    items.push(...page);
    if (page.length < 100) break;
  }
  return { total, items };
}

describe('filters agree with the reference implementation', () => {
  for (let i = 0; i < 40; i++) {
    const filters = randomFilters();
    test(`/foods case ${i}: ${JSON.stringify(filters).slice(0, 160)}`, async () => {
      const expected = catalog.foods.filter((food) => foodPasses(catalog, food, filters)).sort(byName).map((x) => x.foodId);
      const got = await all<{ foodId: string }>(`/v1/foods?fields=foodId&${params(filters).toString()}`, 'foods');
      assert.equal(got.total, expected.length);
      assert.deepEqual(got.items.map((x) => x.foodId), expected);
    });
  }

  const GENERIC = [
    { id: '72e34d90-9563-4433-8ec4-c51801d06330', name: 'Average All Brands', region: 'us' as const },
    { id: '4a497106-5e8c-4729-9451-667c2b57514b', name: 'Average All Brands', region: 'au' as const },
  ];
  /** A whole-list brands filter (`!A,B` = neither) as the reference's id filter. */
  const brandList = (f: IdFilterSpec | undefined): IdFilterSpec | undefined => {
    if (!f) return undefined;
    const ids = [...f.include, ...f.exclude];
    if (ids.length === 0) return undefined;
    return f.exclude.length > 0 ? { include: [], exclude: ids } : { include: ids, exclude: [] };
  };
  const hasAny = (f: FoodFilterSpec): boolean => Boolean(f.brands || f.tags || f.categories || f.classifications);

  for (let i = 0; i < 20; i++) {
    const r = randomFilters();
    test(`/brands case ${i}: records of the foods that pass`, async () => {
      const foodFilters: FoodFilterSpec = { ...(r.tags ? { tags: r.tags } : {}), ...(r.categories ? { categories: r.categories } : {}),
        ...(r.classifications ? { classifications: r.classifications } : {}) };
      const ids = new Set(catalog.foods.filter((x) => foodPasses(catalog, x, { ...foodFilters, ...(r.region ? { region: r.region } : {}) })).map((x) => x.brand));
      const expected = [...catalog.brands, ...GENERIC]
        .filter((b) => (!r.region || b.region === r.region) && (!hasAny(foodFilters) || ids.has(b.id))).sort(byName).map((b) => b.id);
      const got = await all<{ id: string }>(`/v1/brands?fields=id&${params({ ...foodFilters, ...(r.region ? { region: r.region } : {}) }).toString()}`, 'brands');
      assert.deepEqual(got.items.map((b) => b.id), expected);
      assert.equal(got.total, expected.length);
    });

    test(`/categories case ${i}: the foods' own leaf categories`, async () => {
      const brands = brandList(r.brands);
      const foodFilters: FoodFilterSpec = { ...(brands ? { brands } : {}), ...(r.tags ? { tags: r.tags } : {}),
        ...(r.classifications ? { classifications: r.classifications } : {}) };
      const ids = new Set(catalog.foods.filter((x) => foodPasses(catalog, x, { ...foodFilters, ...(r.region ? { region: r.region } : {}) })).map((x) => x.category));
      const expected = catalog.categories
        .filter((c) => (!r.region || c.region === r.region) && (!hasAny(foodFilters) || ids.has(c.id))).sort(byName).map((c) => c.id);
      const p = params({ ...(r.region ? { region: r.region } : {}), ...(r.tags ? { tags: r.tags } : {}),
        ...(r.classifications ? { classifications: r.classifications } : {}), ...(brands ? { brands } : {}) }, 'list');
      const got = await all<{ id: string }>(`/v1/categories?fields=id&${p.toString()}`, 'categories');
      assert.deepEqual(got.items.map((c) => c.id), expected);
    });

    test(`/tags case ${i}: the union of the tags of the foods that pass (no region)`, async () => {
      const brands = brandList(r.brands);
      const foodFilters: FoodFilterSpec = { ...(brands ? { brands } : {}), ...(r.categories ? { categories: r.categories } : {}),
        ...(r.classifications ? { classifications: r.classifications } : {}) };
      const ids = new Set(catalog.foods.filter((x) => foodPasses(catalog, x, foodFilters)).flatMap((x) => x.tags));
      const expected = catalog.tags.filter((t) => !hasAny(foodFilters) || ids.has(t.id)).sort(byName).map((t) => t.id);
      const got = await all<{ id: string }>(`/v1/tags?fields=id&${params(foodFilters, 'list').toString()}`, 'tags');
      assert.deepEqual(got.items.map((t) => t.id), expected);
    });
  }

  test('/categories parents and is-leaf', async () => {
    const tops = catalog.categories.filter((c) => !c.parent).slice(0, 2).map((c) => c.id);
    const children = catalog.categories.filter((c) => c.parent !== undefined && tops.includes(c.parent)).sort(byName).map((c) => c.id);
    const got = await all<{ id: string }>(`/v1/categories?fields=id&parents=${tops.join(',')}`, 'categories');
    assert.deepEqual(got.items.map((c) => c.id), children);
    const notUnder = catalog.categories.filter((c) => c.parent === undefined || !tops.includes(c.parent)).sort(byName).map((c) => c.id);
    const inverted = await all<{ id: string }>(`/v1/categories?fields=id&parents=!${tops.join(',')}`, 'categories');
    assert.deepEqual(inverted.items.map((c) => c.id), notUnder);
    const parents = new Set(catalog.categories.map((c) => c.parent));
    const leaves = await all<{ id: string; isLeaf: boolean }>('/v1/categories?fields=id,isLeaf&is-leaf=true', 'categories');
    assert.deepEqual(leaves.items.map((c) => c.id), catalog.categories.filter((c) => !parents.has(c.id)).sort(byName).map((c) => c.id));
    assert.ok(leaves.items.every((c) => c.isLeaf));
  });
});

describe('paging', () => {
  for (const limit of [1, 5, 10, 20, 30, 50]) {
    test(`walking every page with limit ${limit} returns each food exactly once, in the order of one big page`, async () => {
      const query = 'query=cheese&fields=foodId';
      const big = await all<{ foodId: string }>(`/v1/foods?${query}`, 'foods');
      const walked: string[] = [];
      for (let offset = 0; offset < big.total + limit; offset += limit) {
        const res = await server.get(`/v1/foods?${query}&limit=${limit}&offset=${offset}`);
        walked.push(...(res.body as { foods: { foodId: string }[] }).foods.map((f) => f.foodId));
      }
      assert.deepEqual(walked, big.items.map((f) => f.foodId));
      assert.equal(new Set(walked).size, walked.length);
    });
  }

  test('desc is the exact reverse of asc, for name and rank order', async () => {
    for (const field of ['name', 'rank']) {
      const asc = await all<{ foodId: string }>(`/v1/foods?query=cheese&fields=foodId&order=${field}:asc`, 'foods');
      const desc = await all<{ foodId: string }>(`/v1/foods?query=cheese&fields=foodId&order=${field}:desc`, 'foods');
      assert.deepEqual(desc.items.map((f) => f.foodId), asc.items.map((f) => f.foodId).reverse());
    }
  });
});
