import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { importInto } from '../helpers/cli.js';
import { ROOT, tempDir } from '../helpers/paths.js';
import { forEachStore, newTestStore } from '../helpers/stores.js';
import { loadConfig } from '../../src/config.js';
import type { CatalogStore } from '../../src/store/catalog-store.js';
import { openStore } from '../../src/store/open-store.js';
import { foodListRequest } from '../../src/query/requests.js';
import type { RawQuery } from '../../src/query/params.js';

/**
 * Responses without `fields` are spliced from stored JSON (foodsJson); with `fields` the foods
 * are built as objects and serialised (foods). On the bundled USDA data (7,413 real foods, with
 * and without tags, otherNames, mass, volume, upcs), both must give the same bytes.
 */
const requests: RawQuery[] = [
  { limit: '100' },
  { limit: '100', offset: '3000' },
  { query: 'cheese', limit: '100' },
  { query: 'chicken raw', limit: '50', offset: '20' },
  { query: 'chi', 'query-type': 'prefix', limit: '100' },
  { query: 'beef', grouping: 'brand', limit: '100' },
  { query: 'beef', grouping: 'brand', 'grouping-limit': '2', limit: '100' },
  { query: 'soup', grouping: 'classification', limit: '100', order: 'name:desc' },
  { grouping: 'brand', limit: '100', offset: '7000' },
  { region: 'us', query: 'milk', order: 'rank:desc', limit: '30' },
];

forEachStore((kind) => {
  let cleanup: () => void;
  let store: CatalogStore;

  before(async () => {
    const temp = tempDir();
    cleanup = temp.cleanup;
    const target = await newTestStore(kind, temp.dir, 'sr21');
    await importInto(target, 'usda-sr', [join(ROOT, 'data/usda-sr21')]);
    store = await openStore(loadConfig(target.flags, {}), { readonly: true });
    await store.warm();
  });

  after(async () => {
    await store.close();
    cleanup();
  });

  test('spliced food JSON is byte for byte what serialising the built foods gives', async () => {
    let compared = 0;
    for (const raw of requests) {
      const { query } = foodListRequest(raw);
      const built = await store.foods(query);
      const spliced = await store.foodsJson(query);
      assert.equal(spliced.total, built.total, JSON.stringify(raw));
      const expected = JSON.stringify(built.items.map((hit) => (hit.grouping ? { ...hit.food, grouping: hit.grouping } : hit.food)));
      assert.equal(`[${spliced.items.join(',')}]`, expected, JSON.stringify(raw));
      compared += built.items.length;
    }
    assert.ok(compared > 600, `${compared} foods compared`);
  });

  test('every food of the catalogue is spliced as it is built, its brand, category and tags found by rid', async () => {
    let compared = 0;
    let tagged = 0;
    for (let offset = 0; ; offset += 100) {
      const { query } = foodListRequest({ limit: '100', offset: String(offset) });
      const built = await store.foods(query);
      const spliced = await store.foodsJson(query);
      assert.equal(`[${spliced.items.join(',')}]`, JSON.stringify(built.items.map((hit) => hit.food)), `offset ${offset}`);
      compared += built.items.length;
      tagged += built.items.filter((hit) => hit.food.tags.length > 1).length;
      if (built.items.length < 100) break;
    }
    assert.equal(compared, 7413);
    assert.ok(tagged > 0, 'some foods have several tags, whose order is the name order');
  });
});
