import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCatalog } from '../../src/importers/catalog/reader.js';
import { runImport } from '../../src/importers/run-import.js';
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js';
import { fixturePath, tempDir } from '../helpers/paths.js';
import { IDS, fixtureCatalog } from '../helpers/fixture-catalog.js';

// The store notices other processes' imports through `PRAGMA data_version`, which does not
// move for commits of its own connection: an import through the same store must still be seen.
test('a store sees an import made through its own connection at once', async () => {
  const { dir, cleanup } = tempDir();
  const store = new SqliteCatalogStore(join(dir, 'catalog.db'));
  try {
    const load = (file: string) => runImport(store, readCatalog([file], {}), { replace: false, skipInvalid: false });
    await load(fixturePath('catalog.json'));
    const before = await store.state();
    assert.equal((await store.food(IDS.sharp))?.value.brand.name, 'Acme Dairy');

    const catalog = fixtureCatalog();
    const acme = catalog.brands.find((b) => b.id === IDS.acme)!;
    acme.name = 'Acme Creamery';
    const changed = join(dir, 'changed.json');
    writeFileSync(changed, JSON.stringify(catalog));
    await load(changed);

    const after = await store.state();
    assert.ok(after.version > before.version, `version ${before.version} → ${after.version}`);
    assert.equal((await store.food(IDS.sharp))?.value.brand.name, 'Acme Creamery');
    const json = await store.foodJson(IDS.sharp);
    assert.match(json?.value.json ?? '', /"brand":\{"id":"[^"]+","name":"Acme Creamery"/);
  } finally {
    await store.close();
    cleanup();
  }
});
