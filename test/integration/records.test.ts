import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { IDS } from '../helpers/fixture-catalog.js';
import { fixtureServer } from '../helpers/fixture-server.js';
import { forEachStore } from '../helpers/stores.js';

forEachStore((kind) => {
  const fixture = fixtureServer(kind);

  const acme = { id: IDS.acme, name: 'Acme Dairy', region: 'us' };
  const hardCheese = {
    id: IDS.hard, region: 'us', name: 'Hard cheese', parent: IDS.cheese,
    hierarchy: [{ id: IDS.dairy, name: 'Dairy' }, { id: IDS.cheese, name: 'Cheese' }, { id: IDS.hard, name: 'Hard cheese' }],
    isLeaf: true,
  };

  describe('single records', () => {
    test('a food has every field of service.md 2.1 with full brand, category and tags', async () => {
      const res = await fixture.server.get(`/v1/foods/${IDS.sharp}`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      const { food } = res.body as { food: Record<string, unknown> };
      const { revisionId, ...rest } = food;
      assert.match(String(revisionId), /^[0-9a-f-]{36}$/);
      assert.deepEqual(rest, {
        foodId: IDS.sharp,
        region: 'us',
        brand: acme,
        category: hardCheese,
        tags: [{ id: IDS.organic, name: 'Organic' }],
        name: 'Cheddar cheese, sharp',
        otherNames: ['Mature cheddar'],
        description: "A firm, aged cow's milk cheese.",
        note: 'Keep refrigerated',
        classification: 'Cheese, cheddar',
        mass: 100,
        servings: [
          { name: '100 g', scale: 1, type: 'mass', isDefault: true },
          { name: '1 slice', scale: 0.28, type: 'mass', isDefault: false },
          { name: '1 cup, shredded', scale: 1.13, type: 'mass', isDefault: false },
        ],
        defaultServing: { name: '100 g', scale: 1, type: 'mass', isDefault: true },
        upcs: { '012345678905': { servingIndex: 1, quantity: 10 } },
        nutrients: { energy: 1686, fat: 33.1, satFat: 18.9, protein: 24.9, sodium: 621, calcium: 721, cholesterol: 105, totalCarbs: 1.3 },
      });
      assert.deepEqual(Object.keys(food), [
        'foodId', 'revisionId', 'region', 'brand', 'category', 'tags', 'name', 'otherNames', 'description', 'note',
        'classification', 'mass', 'servings', 'defaultServing', 'upcs', 'nutrients',
      ]);
    });

    test('unknown optional fields are omitted, never null; tags are in name order; empty maps stay objects', async () => {
      const { body } = await fixture.server.get(`/v1/foods/${IDS.creme}`);
      const food = (body as { food: Record<string, unknown> }).food;
      for (const key of ['mass', 'volume', 'otherNames', 'description', 'note']) assert.equal(key in food, false, key);
      assert.deepEqual(food['upcs'], {});
      assert.deepEqual(food['nutrients'], {});
      assert.deepEqual(food['tags'], []);
      const brie = (await fixture.server.get(`/v1/foods/${IDS.brie}`)).body as { food: { tags: unknown } };
      assert.deepEqual(brie.food.tags, [{ id: IDS.glutenFree, name: 'Gluten free' }, { id: IDS.organic, name: 'Organic' }]);
    });

    test('every food by id is exactly the food the list serialises, member order included', async () => {
      // Both splice stored JSON; food-json.test.ts checks splicing against built objects.
      const list = (await fixture.server.get('/v1/foods?limit=100')).body as { foods: { foodId: string }[] };
      assert.ok(list.foods.length >= 5);
      for (const food of list.foods) {
        const byId = (await fixture.server.get(`/v1/foods/${food.foodId}`)).body as { food: unknown };
        assert.equal(JSON.stringify(byId.food), JSON.stringify(food));
      }
    });

    test('a food is found by its current revisionId too, and ids compare case-insensitively', async () => {
      const first = (await fixture.server.get(`/v1/foods/${IDS.skim}`)).body as { food: { revisionId: string } };
      const byRevision = await fixture.server.get(`/v1/foods/${first.food.revisionId.toUpperCase()}`);
      assert.equal(byRevision.status, 200);
      assert.deepEqual(byRevision.body, first);
      const upper = await fixture.server.get(`/v1/foods/${IDS.skim.toUpperCase()}`);
      assert.deepEqual(upper.body, first);
    });

    test('brand, category and tag records have their service.md shapes', async () => {
      assert.deepEqual((await fixture.server.get(`/v1/brands/${IDS.acme}`)).body, { brand: acme });
      assert.deepEqual((await fixture.server.get(`/v1/categories/${IDS.hard}`)).body, { category: hardCheese });
      assert.deepEqual((await fixture.server.get(`/v1/categories/${IDS.dairy}`)).body, {
        category: { id: IDS.dairy, region: 'us', name: 'Dairy', hierarchy: [{ id: IDS.dairy, name: 'Dairy' }], isLeaf: false },
      });
      assert.deepEqual((await fixture.server.get(`/v1/tags/${IDS.organic}`)).body, { tag: { id: IDS.organic, name: 'Organic' } });
    });

    test('both generic brands exist with their fixed ids', async () => {
      assert.deepEqual((await fixture.server.get(`/v1/brands/${IDS.genericUs}`)).body, {
        brand: { id: IDS.genericUs, name: 'Average All Brands', region: 'us' },
      });
      assert.deepEqual((await fixture.server.get(`/v1/brands/${IDS.genericAu}`)).body, {
        brand: { id: IDS.genericAu, name: 'Average All Brands', region: 'au' },
      });
    });

    test('an unknown id is a 404 naming the id as given, also when it is not a uuid', async () => {
      const missing = '00000000-0000-4000-8000-999999999999';
      for (const [path, message] of [['foods', 'Food'], ['brands', 'Brand'], ['categories', 'Category'], ['tags', 'Tag']] as const) {
        const res = await fixture.server.get(`/v1/${path}/${missing}`);
        assert.equal(res.status, 404);
        assert.deepEqual(res.body, { code: 404, message: `${message} not found`, details: `id: ${missing}` });
        const notUuid = await fixture.server.get(`/v1/${path}/cheddar`);
        assert.deepEqual(notUuid.body, { code: 404, message: `${message} not found`, details: 'id: cheddar' });
      }
    });
  });

  describe('authentication', () => {
    const unauthorized = { code: 401, message: 'Not Authorized' };

    test('a request without credentials gets the 401 body and WWW-Authenticate', async () => {
      const res = await fixture.server.get(`/v1/foods/${IDS.sharp}`, { token: null });
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, unauthorized);
      assert.equal(res.headers.get('www-authenticate'), 'Basic realm="foodlookup"');
    });

    test('unknown tokens and malformed headers are 401', async () => {
      assert.equal((await fixture.server.get('/v1/foods', { token: 'nope' })).status, 401);
      for (const header of ['Bearer abc', 'Basic', 'Basic !!!', 'Basic ' + Buffer.from(':pw').toString('base64')]) {
        const res = await fixture.server.get('/v1/foods', { token: null, headers: { authorization: header } });
        assert.equal(res.status, 401, header);
        assert.deepEqual(res.body, unauthorized);
      }
    });

    test('a non-empty password is accepted and ignored', async () => {
      const header = `Basic ${Buffer.from('test-token-0123456789:whatever').toString('base64')}`;
      assert.equal((await fixture.server.get(`/v1/foods/${IDS.sharp}`, { token: null, headers: { authorization: header } })).status, 200);
    });

    test('authentication comes before 404, 405 and 400', async () => {
      assert.equal((await fixture.server.get('/v1/foods/00000000-0000-4000-8000-999999999999', { token: null })).status, 401);
      assert.equal((await fixture.server.get('/v1/nowhere', { token: null })).status, 401);
      assert.equal((await fixture.server.get('/v1/foods?limit=7', { token: null })).status, 401);
      const post = await fixture.server.fetch('/v1/foods', { method: 'POST', token: null });
      assert.equal(post.status, 401);
    });

    test('/healthz needs no token', async () => {
      const res = await fixture.server.get('/healthz', { token: null });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { status: 'ok', store: 'ok' });
    });
  });

  describe('errors', () => {
    test('an unknown route is 404 with the path as received', async () => {
      const res = await fixture.server.get('/v1/nowhere/x?limit=5');
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { code: 404, message: 'Not Found', details: 'Path: /v1/nowhere/x' });
      assert.deepEqual((await fixture.server.get('/elsewhere', { token: null })).body, { code: 404, message: 'Not Found', details: 'Path: /elsewhere' });
    });

    test('a method other than GET/HEAD is 405 with Allow', async () => {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const res = await fixture.server.fetch(`/v1/foods/${IDS.sharp}`, { method });
        assert.equal(res.status, 405);
        assert.equal(res.headers.get('allow'), 'GET, HEAD');
        assert.deepEqual(await res.json(), { code: 405, message: 'Method Not Allowed', details: `Method: ${method}` });
      }
    });

    test('HEAD answers like GET without a body', async () => {
      const res = await fixture.server.fetch(`/v1/foods/${IDS.sharp}`, { method: 'HEAD' });
      assert.equal(res.status, 200);
      assert.equal(await res.text(), '');
    });

    test('a known parameter given twice is a 400 naming it', async () => {
      const res = await fixture.server.get(`/v1/foods/${IDS.sharp}?fields=name&fields=brand`);
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { code: 400, message: 'Invalid parameter', details: "Parameter 'fields': given more than once" });
    });

    test('a URI over 64 KiB is 414; 1,000 uuids in a list fit', async () => {
      const ids = Array.from({ length: 1000 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`).join(',');
      assert.equal((await fixture.server.get(`/v1/foods?brands=${ids}`)).status, 200);
      const res = await fixture.server.get(`/v1/foods?query=${'a'.repeat(70 * 1024)}`);
      assert.equal(res.status, 414);
      assert.equal((res.body as { code: number }).code, 414);
    });
  });

  describe('partial responses on single records', () => {
    const food = async (fields: string): Promise<{ status: number; body: unknown }> =>
      fixture.server.get(`/v1/foods/${IDS.sharp}?fields=${encodeURIComponent(fields)}`);

    test('plain, nested and list selectors', async () => {
      assert.deepEqual((await food('name,brand/name')).body, { food: { brand: { name: 'Acme Dairy' }, name: 'Cheddar cheese, sharp' } });
      assert.deepEqual((await food('servings/name')).body, { food: { servings: [{ name: '100 g' }, { name: '1 slice' }, { name: '1 cup, shredded' }] } });
      assert.deepEqual((await food('category/hierarchy/name')).body, {
        food: { category: { hierarchy: [{ name: 'Dairy' }, { name: 'Cheese' }, { name: 'Hard cheese' }] } },
      });
      assert.deepEqual((await food('nutrients(energy,fat),upcs/012345678905/quantity')).body, {
        food: { upcs: { '012345678905': { quantity: 10 } }, nutrients: { energy: 1686, fat: 33.1 } },
      });
    });

    test('a nutrient the food lacks gives an empty object', async () => {
      assert.deepEqual((await food('nutrients/caffeine')).body, { food: { nutrients: {} } });
    });

    test('$summary and $detailed expand to their field sets and mix with other selectors', async () => {
      const summary = (await food('$summary')).body as { food: Record<string, unknown> };
      assert.deepEqual(Object.keys(summary.food).sort(), ['brand', 'classification', 'name', 'revisionId']);
      const detailed = (await food('$detailed,category/name')).body as { food: Record<string, unknown> };
      assert.deepEqual(Object.keys(detailed.food).sort(), [
        'brand', 'category', 'classification', 'defaultServing', 'description', 'foodId', 'mass', 'name', 'note', 'nutrients',
        'otherNames', 'revisionId', 'servings', 'tags', 'upcs',
      ]);
      assert.deepEqual(detailed.food['category'], { name: 'Hard cheese' });
    });

    test('the wrapped form food(...) works', async () => {
      assert.deepEqual((await food('food(name)')).body, { food: { name: 'Cheddar cheese, sharp' } });
    });

    test('fields on brands, categories and tags', async () => {
      assert.deepEqual((await fixture.server.get(`/v1/brands/${IDS.acme}?fields=name`)).body, { brand: { name: 'Acme Dairy' } });
      assert.deepEqual((await fixture.server.get(`/v1/categories/${IDS.hard}?fields=hierarchy/id,isLeaf`)).body, {
        category: { hierarchy: [{ id: IDS.dairy }, { id: IDS.cheese }, { id: IDS.hard }], isLeaf: true },
      });
      const summary = await fixture.server.get(`/v1/tags/${IDS.organic}?fields=$summary`);
      assert.deepEqual(summary.body, { code: 400, message: "Unknown path in 'fields'", details: "Path: '$summary'" });
    });

    test('an unknown path is the 400 of service.md 7 with the full slash path', async () => {
      assert.deepEqual((await food('servings/colour')).body, { code: 400, message: "Unknown path in 'fields'", details: "Path: 'servings/colour'" });
      assert.deepEqual((await food('nutrients/vitaminZ')).body, { code: 400, message: "Unknown path in 'fields'", details: "Path: 'nutrients/vitaminZ'" });
      assert.equal((await food('grouping')).status, 400);
    });

    test('syntax errors are 400 Invalid fields', async () => {
      for (const bad of ['brand()', 'name,,brand', 'brand(name', 'name)']) {
        const res = await food(bad);
        assert.equal(res.status, 400, bad);
        assert.equal((res.body as { message: string }).message, "Invalid 'fields'", bad);
      }
    });

    test('an empty fields is the same as none', async () => {
      assert.deepEqual((await fixture.server.get(`/v1/foods/${IDS.sharp}?fields=`)).body, (await fixture.server.get(`/v1/foods/${IDS.sharp}`)).body);
    });
  });

  describe('caching', () => {
    test('records carry Last-Modified and answer If-Modified-Since with 304', async () => {
      const first = await fixture.server.get(`/v1/foods/${IDS.sharp}`);
      const lastModified = first.headers.get('last-modified');
      assert.ok(lastModified);
      const same = await fixture.server.get(`/v1/foods/${IDS.sharp}`, { headers: { 'if-modified-since': lastModified } });
      assert.equal(same.status, 304);
      assert.equal(same.text, '');
      const later = new Date(Date.parse(lastModified) + 60_000).toUTCString();
      assert.equal((await fixture.server.get(`/v1/foods/${IDS.sharp}`, { headers: { 'if-modified-since': later } })).status, 304);
      const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString();
      assert.equal((await fixture.server.get(`/v1/foods/${IDS.sharp}`, { headers: { 'if-modified-since': earlier } })).status, 200);
    });

    test('a weak ETag answers If-None-Match with 304', async () => {
      const first = await fixture.server.get(`/v1/brands/${IDS.acme}`);
      const etag = first.headers.get('etag');
      assert.match(etag ?? '', /^W\/"/);
      assert.equal((await fixture.server.get(`/v1/brands/${IDS.acme}`, { headers: { 'if-none-match': etag! } })).status, 304);
      assert.equal((await fixture.server.get(`/v1/brands/${IDS.acme}`, { headers: { 'if-none-match': 'W/"other"' } })).status, 200);
    });

    test('collections carry the catalogue Last-Modified', async () => {
      const res = await fixture.server.get('/v1/tags');
      const lastModified = res.headers.get('last-modified');
      assert.ok(lastModified);
      assert.equal((await fixture.server.get('/v1/tags', { headers: { 'if-modified-since': lastModified } })).status, 304);
    });

    test('a collection answers If-None-Match with 304 from the cache too, and a bad request stays a 400', async () => {
      const first = await fixture.server.get('/v1/foods?query=cheese');
      const etag = first.headers.get('etag')!;
      const conditional = { headers: { 'if-none-match': etag } };
      assert.equal((await fixture.server.get('/v1/foods?query=cheese', conditional)).status, 304, 'cached, unchanged');
      assert.equal((await fixture.server.get('/v1/foods?query=cheddar', conditional)).status, 304, 'not cached, unchanged');
      const bad = await fixture.server.get('/v1/foods?query=cheese&limit=7', conditional);
      assert.equal(bad.status, 400);
      assert.match(JSON.stringify(bad.body), /Parameter 'limit'/);
    });
  });
});
