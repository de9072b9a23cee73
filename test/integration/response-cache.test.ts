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
