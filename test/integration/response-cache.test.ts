import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importInto } from '../helpers/cli.js';
import { fixturePath, tempDir } from '../helpers/paths.js';
import { startTestServer } from '../helpers/server.js';
import { fixtureCatalog } from '../helpers/fixture-catalog.js';

test('cached collection responses never outlive an import that changes the catalogue', async () => {
  const { dir, cleanup } = tempDir();
  const db = join(dir, 'catalog.db');
  await importInto(db, 'catalog', [fixturePath('catalog.json')]);
  const server = await startTestServer(db);
  try {
    const names = async (): Promise<string[]> =>
      ((await server.get('/v1/foods?query=cheddar&fields=name')).body as { foods: { name: string }[] }).foods.map((f) => f.name).sort();
    assert.deepEqual(await names(), ['Cheddar cheese, mild', 'Cheddar cheese, sharp']);
    assert.deepEqual(await names(), ['Cheddar cheese, mild', 'Cheddar cheese, sharp'], 'served again (from the cache)');
    const catalog = fixtureCatalog();
    (catalog.foods[1] as { name: string }).name = 'Cheddar cheese, extra mild';
    const file = join(dir, 'changed.json');
    writeFileSync(file, JSON.stringify(catalog));
    await importInto(db, 'catalog', [file]);
    assert.deepEqual(await names(), ['Cheddar cheese, extra mild', 'Cheddar cheese, sharp']);
    const tags = await server.get('/v1/tags?fields=name');
    assert.equal(tags.status, 200);
  } finally {
    await server.close();
    cleanup();
  }
});

test('an import in another process lands while requests keep coming, and the next request sees it', async () => {
  const { dir, cleanup } = tempDir();
  const db = join(dir, 'catalog.db');
  await importInto(db, 'catalog', [fixturePath('catalog.json')]);
  const server = await startTestServer(db);
  const catalog = fixtureCatalog();
  const food = catalog.foods[1] as { foodId: string; name: string };
  let stop = false;
  try {
    // Readers share read transactions between requests of one event-loop turn: none may outlive it.
    const load = Array.from({ length: 8 }, async () => {
      let served = 0;
      while (!stop) {
        assert.equal((await server.get(`/v1/foods/${food.foodId}`)).status, 200);
        served++;
      }
      return served;
    });
    for (const name of ['Cheddar cheese, renamed once', 'Cheddar cheese, renamed twice']) {
      food.name = name;
      const file = join(dir, 'changed.json');
      writeFileSync(file, JSON.stringify(catalog));
      const result = await importInto(db, 'catalog', [file]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(((await server.get(`/v1/foods/${food.foodId}`)).body as { food: { name: string } }).food.name, name);
    }
    stop = true;
    assert.ok((await Promise.all(load)).every((served) => served > 0));
  } finally {
    stop = true;
    await server.close();
    cleanup();
  }
});
