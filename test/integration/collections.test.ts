import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { IDS } from '../helpers/fixture-catalog.js';
import { fixtureServer } from '../helpers/fixture-server.js';
import { forEachStore } from '../helpers/stores.js';

forEachStore((kind) => {
  const fixture = fixtureServer(kind);

  interface FoodItem { foodId: string; name: string; grouping?: { name: string; id?: string } }
  interface List<T> { metadata: { total: number; limit: number; offset: number }; [key: string]: unknown; items?: T[] }

  async function list<T>(path: string, key: string): Promise<{ metadata: List<T>['metadata']; items: T[] }> {
    const res = await fixture.server.get(path);
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    const body = res.body as List<T>;
    return { metadata: body.metadata, items: body[key] as T[] };
  }
  const names = async (path: string, key = 'foods'): Promise<string[]> =>
    (await list<{ name: string }>(path, key)).items.map((x) => x.name);

  describe('collections: shape and paging', () => {
    test('every collection has full metadata and the array named after the resource', async () => {
      for (const [path, key, total] of [['/v1/foods', 'foods', 7], ['/v1/brands', 'brands', 6], ['/v1/categories', 'categories', 8], ['/v1/tags', 'tags', 3]] as const) {
        const { metadata, items } = await list(`${path}?limit=5`, key);
        assert.deepEqual(metadata, { total, limit: 5, offset: 0 });
        assert.equal(items.length, Math.min(5, total));
      }
    });

    test('without a query foods are in name order (folded), brands, categories and tags too', async () => {
      assert.deepEqual(await names('/v1/foods'), [
        'Brie', 'Cheddar cheese, mild', 'Cheddar cheese, sharp', 'Cheese spread', 'Crème brûlée', 'Macadamia nuts, roasted', 'Skim milk',
      ]);
      assert.deepEqual(await names('/v1/brands', 'brands'), ['Acme Dairy', 'Average All Brands', 'Average All Brands', 'Bush Tucker Co', 'Éclair Bakery', 'Zebra Foods']);
      assert.deepEqual(await names('/v1/brands?order=desc', 'brands'), ['Zebra Foods', 'Éclair Bakery', 'Bush Tucker Co', 'Average All Brands', 'Average All Brands', 'Acme Dairy']);
      assert.deepEqual(await names('/v1/tags?order=name:desc', 'tags'), ['Organic', 'Low fat', 'Gluten free']);
    });

    test('an offset past the end gives an empty list with the true total', async () => {
      const { metadata, items } = await list('/v1/foods?offset=100', 'foods');
      assert.deepEqual(metadata, { total: 7, limit: 20, offset: 100 });
      assert.deepEqual(items, []);
    });

    test('collection items have the full record shapes', async () => {
      const { items } = await list<Record<string, unknown>>(`/v1/foods?brands=${IDS.acme}&query=sharp`, 'foods');
      const single = (await fixture.server.get(`/v1/foods/${IDS.sharp}`)).body as { food: unknown };
      assert.deepEqual(items, [single.food]);
      const categories = await list(`/v1/categories?parents=${IDS.cheese}`, 'categories');
      assert.deepEqual(categories.items, [
        (await fixture.server.get(`/v1/categories/${IDS.hard}`)).body as Record<string, unknown>,
        (await fixture.server.get(`/v1/categories/${IDS.soft}`)).body as Record<string, unknown>,
      ].map((b) => b['category']));
    });
  });

  describe('collections: matching', () => {
    test('fts: every word must match, case and diacritics ignored, on name, brand, classification, other names, description', async () => {
      assert.deepEqual(await names('/v1/foods?query=CRÈME'), ['Crème brûlée']);
      assert.deepEqual(await names('/v1/foods?query=creme%20brulee'), ['Crème brûlée']);
      assert.deepEqual(await names('/v1/foods?query=acme&order=name'), ['Brie', 'Cheddar cheese, sharp'], 'brand name');
      assert.deepEqual(await names('/v1/foods?query=queensland'), ['Macadamia nuts, roasted'], 'other names');
      assert.deepEqual(await names('/v1/foods?query=aged%20milk'), ['Cheddar cheese, sharp'], 'description');
      assert.deepEqual(await names('/v1/foods?query=cheese%20zebra'), ['Cheddar cheese, mild'], 'words across fields');
      assert.deepEqual(await names('/v1/foods?query=refrigerated'), [], 'not the note');
      assert.deepEqual(await names('/v1/foods?query=hard'), [], 'not category names');
    });

    test('fts: foods whose name holds every word rank above those that need other fields', async () => {
      const ranked = await names('/v1/foods?query=cheese');
      assert.deepEqual(ranked.slice(0, 3).sort(), ['Cheddar cheese, mild', 'Cheddar cheese, sharp', 'Cheese spread']);
      assert.deepEqual(ranked.slice(3), ['Brie']);
    });

    test('fts: a word followed by * matches as a prefix, and no stemming otherwise', async () => {
      assert.deepEqual(await names('/v1/foods?query=chedd*&order=name'), ['Cheddar cheese, mild', 'Cheddar cheese, sharp']);
      assert.deepEqual(await names('/v1/foods?query=chedd'), []);
      assert.deepEqual(await names('/v1/foods?query=roast'), [], 'roasted is another word');
    });

    test('prefix: names beginning with the query; equal first, then shorter, then name', async () => {
      assert.deepEqual(await names('/v1/foods?query=ch&query-type=prefix'), ['Cheese spread', 'Cheddar cheese, mild', 'Cheddar cheese, sharp']);
      assert.deepEqual(await names('/v1/foods?query=brie&query-type=prefix'), ['Brie']);
      assert.deepEqual(await names('/v1/foods?query=CR%C3%88&query-type=prefix'), ['Crème brûlée']);
      assert.deepEqual(await names('/v1/foods?query=%25&query-type=prefix'), [], '% is literal');
      assert.deepEqual(await names('/v1/foods?query=_&query-type=prefix'), [], '_ is literal');
      assert.deepEqual(await names('/v1/foods?query=cheese%20&query-type=prefix'), ['Cheese spread'], 'the space is literal too');
    });

    test('brands, categories and tags match on their name and stay in name order', async () => {
      assert.deepEqual(await names('/v1/brands?query=eclair', 'brands'), ['Éclair Bakery']);
      assert.deepEqual(await names('/v1/brands?query=a&query-type=prefix', 'brands'), ['Acme Dairy', 'Average All Brands', 'Average All Brands']);
      assert.deepEqual(await names('/v1/categories?query=cheese', 'categories'), ['Cheese', 'Hard cheese', 'Soft cheese']);
      assert.deepEqual(await names('/v1/tags?query=low&query-type=prefix', 'tags'), ['Low fat']);
    });

    test('hostile query text never reaches FTS as syntax and never gives a 500', async () => {
      const hostile = ['"', '"cheese', 'NEAR(cheese brie)', '-cheese', 'cheese OR brie', 'cheese AND', '*', '**cheese', 'name:cheese',
        '{name}: cheese', '^cheese', "'; DROP TABLE foods; --", '🧀 cheese', '\u0000', 'a'.repeat(10_000), 'ch"e*e(s)e', '()'];
      for (const text of hostile) {
        for (const type of ['fts', 'prefix']) {
          for (const path of ['foods', 'brands', 'categories', 'tags']) {
            const res = await fixture.server.get(`/v1/${path}?query-type=${type}&query=${encodeURIComponent(text)}`);
            assert.equal(res.status, 200, `${path} ${type} ${text.slice(0, 20)}: ${res.text.slice(0, 200)}`);
          }
        }
      }
      assert.deepEqual(await names(`/v1/foods?query=${encodeURIComponent('"cheese" -brie')}`), await names('/v1/foods?query=cheese%20brie'));
    });

    test('a blank query is no query; query-type alone has no effect', async () => {
      assert.deepEqual(await names('/v1/foods?query=%20%20'), await names('/v1/foods'));
      assert.deepEqual(await names('/v1/foods?query-type=prefix'), await names('/v1/foods'));
    });
  });

  describe('collections: filters on the fixture', () => {
    test('brands on /foods: plain ids include, ! ids exclude; brand is the same parameter', async () => {
      assert.deepEqual(await names(`/v1/foods?brands=${IDS.acme}`), ['Brie', 'Cheddar cheese, sharp']);
      assert.deepEqual(await names(`/v1/foods?brand=${IDS.acme},!${IDS.acme}`), []);
      assert.deepEqual(await names(`/v1/foods?brands=!${IDS.acme},!${IDS.zebra}&region=us`), ['Cheese spread', 'Crème brûlée']);
    });

    test('tags on /foods: AND of plain ids, none of the ! ids', async () => {
      assert.deepEqual(await names(`/v1/foods?tags=${IDS.organic},${IDS.glutenFree}`), ['Brie']);
      assert.deepEqual(await names(`/v1/foods?tags=${IDS.organic},!${IDS.glutenFree}`), ['Cheddar cheese, sharp']);
    });

    test('categories: a non-leaf id stands for every leaf below it; ! inverts the whole list', async () => {
      assert.deepEqual(await names(`/v1/foods?categories=${IDS.dairy}`), ['Brie', 'Cheddar cheese, mild', 'Cheddar cheese, sharp', 'Cheese spread', 'Skim milk']);
      assert.deepEqual(await names(`/v1/foods?categories=!${IDS.cheese},${IDS.bakery}`), ['Macadamia nuts, roasted', 'Skim milk']);
    });

    test('classifications: exact, case-insensitive, quoted values keep commas, ! inverts', async () => {
      assert.deepEqual(await names('/v1/foods?classifications=%22cheese,%20CHEDDAR%22'), ['Cheddar cheese, mild', 'Cheddar cheese, sharp']);
      assert.deepEqual(await names('/v1/foods?classifications=!%22Cheese,%20cheddar%22,%22Milk,%20skim%22&region=us'), ['Brie', 'Cheese spread', 'Crème brûlée']);
      assert.deepEqual(await names('/v1/foods?classifications=Cheese'), [], 'not a prefix');
    });

    test('a well-formed uuid that matches nothing is not an error', async () => {
      assert.deepEqual(await names('/v1/foods?brands=00000000-0000-4000-8000-999999999999'), []);
    });

    test('filters combine with each other and with query by AND', async () => {
      assert.deepEqual(await names(`/v1/foods?query=cheese&categories=${IDS.hard}&brands=!${IDS.zebra}`), ['Cheddar cheese, sharp']);
    });

    test('/brands, /categories and /tags return the records of the foods that pass', async () => {
      assert.deepEqual(await names(`/v1/brands?tags=${IDS.glutenFree}`, 'brands'), ['Acme Dairy', 'Bush Tucker Co']);
      assert.deepEqual(await names(`/v1/brands?tags=${IDS.glutenFree}&region=us`, 'brands'), ['Acme Dairy']);
      assert.deepEqual(await names(`/v1/categories?brands=${IDS.acme}`, 'categories'), ['Hard cheese', 'Soft cheese']);
      assert.deepEqual(await names(`/v1/categories?is-leaf=false`, 'categories'), ['Cheese', 'Dairy', 'Snacks']);
      assert.deepEqual(await names(`/v1/tags?classifications=%22Cheese,%20brie%22`, 'tags'), ['Gluten free', 'Organic']);
    });
  });

  describe('collections: order and grouping', () => {
    test('desc is the exact reverse of asc; order=rank without a query is name order', async () => {
      assert.deepEqual(await names('/v1/foods?order=name:desc'), (await names('/v1/foods')).reverse());
      assert.deepEqual(await names('/v1/foods?order=rank'), await names('/v1/foods'));
      assert.deepEqual(await names('/v1/foods?query=cheese&order=rank:desc'), (await names('/v1/foods?query=cheese')).reverse());
    });

    test('grouping=brand: each food carries its group; groups in name order; foods adjacent', async () => {
      const { items, metadata } = await list<FoodItem>('/v1/foods?grouping=brand', 'foods');
      assert.equal(metadata.total, 7);
      assert.deepEqual(items.map((f) => [f.grouping?.name, f.name]), [
        ['Acme Dairy', 'Brie'], ['Acme Dairy', 'Cheddar cheese, sharp'], ['Average All Brands', 'Cheese spread'],
        ['Bush Tucker Co', 'Macadamia nuts, roasted'], ['Éclair Bakery', 'Crème brûlée'],
        ['Zebra Foods', 'Cheddar cheese, mild'], ['Zebra Foods', 'Skim milk'],
      ]);
      assert.deepEqual(items[0]!.grouping, { name: 'Acme Dairy', id: IDS.acme });
    });

    test('grouping-order name:desc reverses the groups; foods inside follow order', async () => {
      const { items } = await list<FoodItem>('/v1/foods?grouping=brand&grouping-order=name:desc&order=name:desc', 'foods');
      assert.deepEqual(items.map((f) => f.name), [
        'Skim milk', 'Cheddar cheese, mild', 'Crème brûlée', 'Macadamia nuts, roasted', 'Cheese spread', 'Cheddar cheese, sharp', 'Brie',
      ]);
    });

    test('grouping-limit keeps the first N of each group and metadata.total counts after it', async () => {
      const { items, metadata } = await list<FoodItem>('/v1/foods?grouping=brand&grouping-limit=1&limit=1&offset=4', 'foods');
      assert.equal(metadata.total, 5);
      assert.deepEqual(items.map((f) => f.name), ['Cheddar cheese, mild']);
    });

    test('grouping by rank puts the group holding the most relevant food first', async () => {
      const ranked = (await list<FoodItem & { brand: { id: string } }>('/v1/foods?query=cheese', 'foods')).items;
      const firstSeen = [...new Set(ranked.map((f) => f.brand.id))];
      const grouped = (await list<FoodItem>('/v1/foods?query=cheese&grouping=brand', 'foods')).items;
      assert.deepEqual([...new Set(grouped.map((f) => f.grouping!.id))], firstSeen);
      const reversed = (await list<FoodItem>('/v1/foods?query=cheese&grouping=brand&grouping-order=rank:desc', 'foods')).items;
      assert.deepEqual([...new Set(reversed.map((f) => f.grouping!.id))], [...firstSeen].reverse());
      for (const food of grouped) assert.ok(ranked.findIndex((f) => f.foodId === food.foodId) >= 0);
    });

    test('grouping=classification groups by the exact classification, without id', async () => {
      const { items } = await list<FoodItem>('/v1/foods?grouping=classification&region=us&grouping-limit=1', 'foods');
      assert.deepEqual(items.map((f) => f.grouping), [
        { name: 'Cheese, brie' }, { name: 'Cheese, cheddar' }, { name: 'Cheese, spread' }, { name: 'Dessert, custard' }, { name: 'Milk, skim' },
      ]);
    });

    test('without grouping no food carries a grouping field', async () => {
      const { items } = await list<FoodItem>('/v1/foods', 'foods');
      assert.ok(items.every((f) => !('grouping' in f)));
    });
  });

  describe('collections: fields', () => {
    test('selectors apply to each item; metadata stays whole', async () => {
      const res = await fixture.server.get('/v1/foods?fields=name,brand/name&limit=1');
      assert.deepEqual(res.body, { metadata: { total: 7, limit: 1, offset: 0 }, foods: [{ brand: { name: 'Acme Dairy' }, name: 'Brie' }] });
    });

    test('wrapped forms foods(...) and foods/name', async () => {
      const expected = { metadata: { total: 7, limit: 1, offset: 0 }, foods: [{ name: 'Brie' }] };
      assert.deepEqual((await fixture.server.get('/v1/foods?fields=foods(name)&limit=1')).body, expected);
      assert.deepEqual((await fixture.server.get('/v1/foods?fields=foods/name&limit=1')).body, expected);
      assert.deepEqual((await fixture.server.get('/v1/tags?fields=tags/name&limit=1')).body, { metadata: { total: 3, limit: 1, offset: 0 }, tags: [{ name: 'Gluten free' }] });
    });

    test('grouping is selectable only when grouping is given', async () => {
      const grouped = await fixture.server.get('/v1/foods?grouping=brand&fields=grouping/name&limit=1');
      assert.deepEqual(grouped.body, { metadata: { total: 7, limit: 1, offset: 0 }, foods: [{ grouping: { name: 'Acme Dairy' } }] });
      const plain = await fixture.server.get('/v1/foods?fields=grouping');
      assert.deepEqual(plain.body, { code: 400, message: "Unknown path in 'fields'", details: "Path: 'grouping'" });
    });

    test('$summary on /foods; an unknown path names the wrapped path', async () => {
      const res = await fixture.server.get('/v1/foods?fields=$summary&limit=1');
      assert.deepEqual(Object.keys((res.body as { foods: object[] }).foods[0]!), ['revisionId', 'brand', 'name', 'classification']);
      assert.deepEqual((await fixture.server.get('/v1/foods?fields=foods(colour)')).body, { code: 400, message: "Unknown path in 'fields'", details: "Path: 'foods/colour'" });
      assert.deepEqual((await fixture.server.get('/v1/brands?fields=$summary')).body, { code: 400, message: "Unknown path in 'fields'", details: "Path: '$summary'" });
    });
  });

  describe('collections: a `fields` selection', () => {
    test('gives each food what the same selection of it alone gives, with or without members of its stored body', async () => {
      // Selections of none of the body's members are answered without reading it (src/http/routes/foods.ts):
      // the record's own route reads it whole, so the two answer each food alike only if both are right.
      const selections = ['$summary', 'foodId,name', 'brand/name,tags,category(hierarchy)', 'classification,region,revisionId',
        'name,nutrients', 'servings,defaultServing', 'description,note,otherNames,mass,volume,upcs', '$detailed', 'metadata', 'foods'];
      for (const query of ['', '&query=cheese', '&query=chedar', '&grouping=brand', '&query=milk*&order=name:desc']) {
        const whole = (await list<FoodItem>(`/v1/foods?fields=foodId${query}&limit=10`, 'foods')).items;
        for (const fields of selections) {
          const path = `/v1/foods?fields=${encodeURIComponent(fields)}${query}&limit=10`;
          const page = await fixture.server.get(path);
          assert.equal(page.status, 200, `${path}: ${page.text}`);
          const foods = (page.body as { foods: Record<string, unknown>[] }).foods;
          assert.equal(foods.length, whole.length, path);
          assert.ok(foods.length > 0, path);
          for (const [i, { foodId }] of whole.entries()) {
            // `metadata` alone leaves the foods whole; `foods` is the record's `food`.
            const one = fields === 'metadata' ? '' : `?fields=${encodeURIComponent(fields === 'foods' ? 'food' : fields)}`;
            const alone = await fixture.server.get(`/v1/foods/${foodId}${one}`);
            assert.equal(alone.status, 200, alone.text);
            // A grouped page's foods carry their group besides (the record's route has none).
            const item = Object.fromEntries(Object.entries(foods[i]!).filter(([member]) => member !== 'grouping'));
            // As text: the members' order is part of the answer.
            assert.equal(JSON.stringify(item), JSON.stringify((alone.body as { food: unknown }).food), `${path}: ${foodId}`);
          }
        }
      }
    });
  });

  describe('collections: hostile parameters get the documented 400', () => {
    const cases: [string, string][] = [
      ['limit=abc', "Parameter 'limit': must be one of 1, 5, 10, 20, 30, 50, 100"],
      ['limit=5&limit=10', "Parameter 'limit': given more than once"],
      ['offset=-1', "Parameter 'offset': must be a whole number from 0 to 2147483647"],
      ['offset=1e309', "Parameter 'offset': must be a whole number from 0 to 2147483647"],
      ['categories=!', "Parameter 'categories': '!' must be followed by at least one id"],
      ['classifications=%22unterminated', "Parameter 'classifications': unterminated quote"],
      ['order=name:sideways', "Parameter 'order': must be 'rank' or 'name', optionally followed by ':asc' or ':desc'"],
      ['grouping-limit=0', "Parameter 'grouping-limit': must be a whole number from 1 to 2147483647"],
      ['brands=not-a-uuid', "Parameter 'brands': 'not-a-uuid' is not a uuid"],
      ['region=eu', "Parameter 'region': must be 'au' or 'us'"],
    ];
    for (const [query, details] of cases) {
      test(`/foods?${query}`, async () => {
        const res = await fixture.server.get(`/v1/foods?${query}`);
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, { code: 400, message: 'Invalid parameter', details });
      });
    }

    test('10,000 ids in brands: too long a URI, 414 with the contract body', async () => {
      const ids = Array.from({ length: 10_000 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`).join(',');
      const res = await fixture.server.get(`/v1/foods?brands=${ids}`);
      assert.equal(res.status, 414);
      assert.deepEqual(Object.keys(res.body as object), ['code', 'message', 'details']);
    });

    test('parameters of other endpoints are checked there too', async () => {
      assert.deepEqual((await fixture.server.get('/v1/categories?is-leaf=maybe')).body, { code: 400, message: 'Invalid parameter', details: "Parameter 'is-leaf': must be 'true' or 'false'" });
      assert.deepEqual((await fixture.server.get('/v1/tags?order=rank')).body, { code: 400, message: 'Invalid parameter', details: "Parameter 'order': must be 'asc', 'desc', 'name:asc' or 'name:desc'" });
      assert.deepEqual((await fixture.server.get('/v1/brands?parents=x')).status, 200, 'parents is not a /brands parameter: ignored');
    });
  });
});
