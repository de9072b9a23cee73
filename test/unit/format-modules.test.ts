import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadAllFormats, loadFormat } from '../../src/importers/format-modules.js';
import { formatNames } from '../../src/importers/formats.js';

test('each format loads on its own (as the import worker loads it), and all of them together', async () => {
  const names = ['afcd', 'ausnut', 'catalog', 'fdc', 'off', 'usda-sr'];
  for (const name of names) assert.equal(typeof await loadFormat(name), 'function', name);
  assert.equal(await loadFormat('nope'), undefined);
  assert.equal(await loadFormat('toString'), undefined);
  await loadAllFormats();
  assert.deepEqual(formatNames(), names);
});
