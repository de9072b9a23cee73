import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { importInto, runCli } from '../helpers/cli.js';
import { fixturePath, tempDir } from '../helpers/paths.js';
import { snapshot } from '../helpers/db-snapshot.js';
import { catalogJsonl, fixtureCatalog, IDS, u, type FixtureCatalog } from '../helpers/fixture-catalog.js';
import { startTestServer } from '../helpers/server.js';

let dir: string;
let cleanup: () => void;
let db: string;

before(async () => {
  ({ dir, cleanup } = tempDir());
  db = join(dir, 'catalog.db');
  await importInto(db, 'catalog', [fixturePath('catalog.json')]);
});

after(() => cleanup());

function writeCatalog(name: string, catalog: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(catalog));
  return path;
}

function writeJsonl(name: string, catalog: FixtureCatalog, extra: string[] = []): string {
  const path = join(dir, name);
  writeFileSync(path, catalogJsonl(catalog, extra));
  return path;
}

/** A database copy that one test may break. */
function scratchDb(name: string): string {
  const path = join(dir, name);
  copyFileSync(db, path);
  return path;
}

async function assertFailsAndChangesNothing(file: string, expected: RegExp): Promise<string> {
  const target = scratchDb(`scratch-${Math.random().toString(36).slice(2)}.db`);
  const before = snapshot(target);
  const result = await runCli(['import', 'catalog', file, '--db', target]);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /import failed, nothing was changed/);
  assert.match(result.stderr, expected);
  assert.equal(snapshot(target), before, 'the database changed');
  return result.stderr;
}

describe('import catalog', () => {
  test('a first import adds every record and prints the summary line', async () => {
    const fresh = join(dir, 'fresh.db');
    const result = await importInto(fresh, 'catalog', [fixturePath('catalog.json')]);
    assert.match(result.stdout, /^imported 7 foods: 7 added, 0 changed, 0 unchanged, 0 skipped; brands, categories and tags: 15 added, 0 changed, 0 unchanged; in \d+\.\d s$/m);
  });

  test('re-importing the same data changes nothing, not even Last-Modified', async () => {
    const target = scratchDb('reimport.db');
    const before = snapshot(target);
    const result = await importInto(target, 'catalog', [fixturePath('catalog.json')]);
    assert.match(result.stdout, /imported 7 foods: 0 added, 0 changed, 7 unchanged, 0 skipped; brands, categories and tags: 0 added, 0 changed, 15 unchanged;/);
    assert.equal(snapshot(target), before);
  });

  test('the .jsonl form imports the same catalogue with the same revisions', async () => {
    const path = writeJsonl('catalog.jsonl', fixtureCatalog());
    const target = join(dir, 'jsonl.db');
    await importInto(target, 'catalog', [path]);
    const server = await startTestServer(target);
    const reference = await startTestServer(db);
    try {
      for (const id of [IDS.sharp, IDS.skim, IDS.macadamia]) {
        assert.deepEqual((await server.get(`/v1/foods/${id}`)).body, (await reference.get(`/v1/foods/${id}`)).body);
      }
    } finally {
      await server.close();
      await reference.close();
    }
  });

  test('a changed food gets a new revisionId and keeps its foodId; the others keep theirs', async () => {
    const target = scratchDb('change.db');
    const server = await startTestServer(target);
    const revision = async (id: string): Promise<string> =>
      ((await server.get(`/v1/foods/${id}?fields=revisionId`)).body as { food: { revisionId: string } }).food.revisionId;
    const [sharpBefore, brieBefore] = [await revision(IDS.sharp), await revision(IDS.brie)];
    await server.close();
    const catalog = fixtureCatalog();
    (catalog.foods[0] as { nutrients: Record<string, number> }).nutrients['fiber'] = 0.5;
    const result = await importInto(target, 'catalog', [writeCatalog('changed.json', catalog)]);
    assert.match(result.stdout, /imported 7 foods: 0 added, 1 changed, 6 unchanged, 0 skipped; brands, categories and tags: 0 added, 0 changed, 15 unchanged;/);
    const again = await startTestServer(target);
    try {
      const food = ((await again.get(`/v1/foods/${IDS.sharp}`)).body as { food: { foodId: string; revisionId: string } }).food;
      assert.equal(food.foodId, IDS.sharp);
      assert.notEqual(food.revisionId, sharpBefore);
      const brie = ((await again.get(`/v1/foods/${IDS.brie}?fields=revisionId`)).body as { food: { revisionId: string } }).food;
      assert.equal(brie.revisionId, brieBefore);
    } finally {
      await again.close();
    }
  });

  test('a revisionId given in the file is kept', async () => {
    const catalog = fixtureCatalog();
    const given = '11111111-2222-4333-8444-555555555555';
    (catalog.foods[1] as Record<string, unknown>)['revisionId'] = given;
    const target = scratchDb('given-revision.db');
    await importInto(target, 'catalog', [writeCatalog('given.json', catalog)]);
    const server = await startTestServer(target);
    try {
      assert.equal(((await server.get(`/v1/foods/${given}?fields=foodId`)).body as { food: { foodId: string } }).food.foodId, IDS.mild);
    } finally {
      await server.close();
    }
  });

  test('--replace removes what the file does not list, in the same transaction', async () => {
    const catalog = fixtureCatalog();
    catalog.foods = catalog.foods.filter((f) => f['foodId'] !== IDS.creme);
    catalog.brands = catalog.brands.filter((b) => b.id !== IDS.eclair);
    catalog.categories = catalog.categories.filter((c) => c.id !== IDS.bakery);
    const target = scratchDb('replace.db');
    const result = await importInto(target, 'catalog', [writeCatalog('smaller.json', catalog)], ['--replace']);
    assert.match(result.stdout, /imported 6 foods: 0 added, 0 changed, 6 unchanged, 0 skipped; brands, categories and tags: 0 added, 0 changed, 13 unchanged;/);
    const server = await startTestServer(target);
    try {
      assert.equal((await server.get(`/v1/foods/${IDS.creme}`)).status, 404);
      assert.equal((await server.get(`/v1/brands/${IDS.eclair}`)).status, 404);
      assert.equal((await server.get(`/v1/brands/${IDS.genericUs}`)).status, 200, 'the generic brands always stay');
      assert.equal((await server.get(`/v1/foods/${IDS.sharp}`)).status, 200);
    } finally {
      await server.close();
    }
  });

  test('--replace that would leave a listed food without its brand fails and changes nothing', async () => {
    const catalog = fixtureCatalog();
    catalog.brands = catalog.brands.filter((b) => b.id !== IDS.acme);
    const target = scratchDb('replace-bad.db');
    const before = snapshot(target);
    const result = await runCli(['import', 'catalog', writeCatalog('no-acme.json', catalog), '--db', target, '--replace']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /food 00000000-0000-4000-8000-000000000601 \(no-acme\.json foods\[0\]\): brand 00000000-0000-4000-8000-000000000101 does not exist/);
    assert.equal(snapshot(target), before);
  });

  test('--replace with an empty catalogue empties it but keeps the generic brands', async () => {
    const target = scratchDb('replace-empty.db');
    await importInto(target, 'catalog', [writeCatalog('empty.json', { brands: [], categories: [], tags: [], foods: [] })], ['--replace']);
    const server = await startTestServer(target);
    try {
      assert.equal(((await server.get('/v1/foods')).body as { metadata: { total: number } }).metadata.total, 0);
      assert.deepEqual(((await server.get('/v1/brands?fields=id')).body as { brands: { id: string }[] }).brands.map((b) => b.id).sort(),
        [IDS.genericAu, IDS.genericUs].sort());
    } finally {
      await server.close();
    }
  });

  test('--skip-invalid imports the valid records and reports each skipped one with its line', async () => {
    const catalog = fixtureCatalog();
    const bad = JSON.stringify({ kind: 'food', ...catalog.foods[0], foodId: u(699), nutrients: { fat: -1 } });
    const path = writeJsonl('some-bad.jsonl', catalog, ['{not json', bad]);
    const target = join(dir, 'skip.db');
    const result = await runCli(['import', 'catalog', path, '--db', target, '--skip-invalid']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /imported 7 foods: 7 added, 0 changed, 0 unchanged, 2 skipped; brands, categories and tags: 15 added, 0 changed, 0 unchanged;/);
    assert.match(result.stderr, /skipped some-bad\.jsonl:23: not valid JSON/);
    assert.match(result.stderr, /skipped some-bad\.jsonl:24: food\.nutrients\.fat must be ≥ 0, got -1/);
  });
});

describe('a broken file changes nothing and the error names file, line and reason', () => {
  test('bad JSON in a .json file', async () => {
    const path = join(dir, 'broken.json');
    writeFileSync(path, '{"brands": [');
    await assertFailsAndChangesNothing(path, /broken\.json: not valid JSON/);
  });

  test('bad JSON on one line of a .jsonl file', async () => {
    const path = writeJsonl('bad-line.jsonl', fixtureCatalog(), ['{"kind":"tag",']);
    await assertFailsAndChangesNothing(path, /bad-line\.jsonl:23: not valid JSON/);
  });

  test('wrong types', async () => {
    const catalog = fixtureCatalog();
    (catalog.foods[2] as Record<string, unknown>)['name'] = 42;
    await assertFailsAndChangesNothing(writeCatalog('types.json', catalog), /types\.json foods\[2\]: food\.name must be a string/);
  });

  test('a dangling brand reference', async () => {
    const catalog = fixtureCatalog();
    (catalog.foods[0] as Record<string, unknown>)['brand'] = u(199);
    await assertFailsAndChangesNothing(writeCatalog('dangling.json', catalog), /dangling\.json foods\[0\]: brand 00000000-0000-4000-8000-000000000199 does not exist/);
  });

  test('a brand of the other region', async () => {
    const catalog = fixtureCatalog();
    (catalog.foods[0] as Record<string, unknown>)['brand'] = IDS.bush;
    await assertFailsAndChangesNothing(writeCatalog('region.json', catalog), /region\.json foods\[0\]: brand .* is in region au, the food in us/);
  });

  test('a category cycle', async () => {
    const catalog = fixtureCatalog();
    catalog.categories.find((c) => c.id === IDS.dairy)!.parent = IDS.hard;
    await assertFailsAndChangesNothing(writeCatalog('cycle.json', catalog), /its parents form a cycle/);
  });

  test('a parent that does not exist', async () => {
    const catalog = fixtureCatalog();
    catalog.categories.push({ id: u(399), name: 'Orphan', region: 'us', parent: u(398) });
    await assertFailsAndChangesNothing(writeCatalog('orphan.json', catalog), /orphan\.json categories\[8\].*parent 00000000-0000-4000-8000-000000000398 does not exist/);
  });

  test('a food in a non-leaf category', async () => {
    const catalog = fixtureCatalog();
    (catalog.foods[0] as Record<string, unknown>)['category'] = IDS.cheese;
    await assertFailsAndChangesNothing(writeCatalog('nonleaf.json', catalog), /nonleaf\.json foods\[0\]: category .* is not a leaf/);
  });

  test('a category that gets a child after foods were put in it', async () => {
    const catalog = fixtureCatalog();
    const path = writeJsonl('late-child.jsonl', catalog, [JSON.stringify({ kind: 'category', id: u(398), name: 'Late', region: 'us', parent: IDS.bakery })]);
    await assertFailsAndChangesNothing(path, /food 00000000-0000-4000-8000-000000000605 \(late-child\.jsonl:\d+\): category .* is not a leaf/);
  });

  // Into an empty catalogue, a brand, category or tag that moves after foods were put is the
  // only way a food that passed its own checks can break a rule by the end (writer.ts).
  for (const [i, [what, line, expected]] of ([
    ['a category that gets a child', { kind: 'category', id: u(398), name: 'Late', region: 'us', parent: IDS.bakery }, /category .* is not a leaf/],
    ['a brand that moves to the other region', { kind: 'brand', id: IDS.acme, name: 'Acme Dairy', region: 'au' }, /brand .* is now in region au/],
  ] as const).entries()) {
    test(`into an empty catalogue, ${what} after foods were put in the same file`, async () => {
      const path = writeJsonl(`late-${i}.jsonl`, fixtureCatalog(), [JSON.stringify(line)]);
      const result = await runCli(['import', 'catalog', path, '--db', join(dir, `fresh-${i}.db`)]);
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /import failed, nothing was changed/);
      assert.match(result.stderr, expected);
    });
  }

  test('a negative nutrient', async () => {
    const catalog = fixtureCatalog();
    (catalog.foods[3] as { nutrients: Record<string, number> }).nutrients['sugar'] = -5;
    await assertFailsAndChangesNothing(writeCatalog('negative.json', catalog), /negative\.json foods\[3\]: food\.nutrients\.sugar must be ≥ 0, got -5/);
  });

  test('an unknown nutrient key and a upc pointing nowhere', async () => {
    const catalog = fixtureCatalog();
    (catalog.foods[3] as { nutrients: Record<string, number> }).nutrients['vitaminZ'] = 1;
    await assertFailsAndChangesNothing(writeCatalog('key.json', catalog), /unknown nutrient key "vitaminZ"/);
    const other = fixtureCatalog();
    (other.foods[0] as { upcs: Record<string, unknown> }).upcs = { '1': { servingIndex: 9, quantity: 1 } };
    await assertFailsAndChangesNothing(writeCatalog('upc.json', other), /servingIndex must point at an existing serving/);
  });

  test('the generic brand listed with another name', async () => {
    const catalog = fixtureCatalog();
    catalog.brands.push({ id: IDS.genericUs, name: 'Generic', region: 'us' });
    await assertFailsAndChangesNothing(writeCatalog('generic.json', catalog), /may be listed only unchanged/);
  });

  test('a line longer than the limit is refused without reading it whole', async () => {
    const path = join(dir, 'huge-line.jsonl');
    const fd = openSync(path, 'w');
    writeSync(fd, '{"kind":"tag","id":"' );
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    for (let i = 0; i < 70; i++) writeSync(fd, chunk);
    writeSync(fd, '"}\n');
    closeSync(fd);
    await assertFailsAndChangesNothing(path, /line 1 is longer than 67108864 bytes/);
  });

  test('a file that is not .json or .jsonl', async () => {
    const path = join(dir, 'catalog.csv');
    writeFileSync(path, 'a,b\n');
    await assertFailsAndChangesNothing(path, /a catalogue file ends in \.json or \.jsonl/);
  });
});
