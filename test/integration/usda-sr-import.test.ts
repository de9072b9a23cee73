import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { importInto, runCli } from '../helpers/cli.js';
import { fixturePath, ROOT, tempDir } from '../helpers/paths.js';
import { snapshot } from '../helpers/db-snapshot.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { deriveId, ID_NAMESPACES } from '../../src/domain/ids.js';

const SR28 = fixturePath('usda-sr28');
const SR21 = join(ROOT, 'data/usda-sr21');
const GENERIC_US = '72e34d90-9563-4433-8ec4-c51801d06330';
const foodId = (ndb: string, region = 'us'): string => deriveId(ID_NAMESPACES.usdaFood, `${region}:${ndb}`);

interface ApiFood {
  foodId: string; name: string; brand: { id: string; name: string }; category: { name: string; hierarchy: { name: string }[] };
  tags: { name: string }[]; classification: string; note?: string; otherNames?: string[]; mass?: number;
  servings: { name: string; scale: number; type: string }[]; nutrients: Record<string, number>; upcs: object;
}

let dir: string;
let cleanup: () => void;
let sr28: TestServer;
let sr21: TestServer;
let sr28Db: string;
let sr21Db: string;
let sr21Summary: string;

before(async () => {
  ({ dir, cleanup } = tempDir());
  sr28Db = join(dir, 'sr28.db');
  sr21Db = join(dir, 'sr21.db');
  await importInto(sr28Db, 'usda-sr', [SR28]);
  sr21Summary = (await importInto(sr21Db, 'usda-sr', [SR21])).stdout;
  sr28 = await startTestServer(sr28Db);
  sr21 = await startTestServer(sr21Db);
});

after(async () => {
  await sr28.close();
  await sr21.close();
  cleanup();
});

async function food(server: TestServer, ndb: string): Promise<ApiFood> {
  const res = await server.get(`/v1/foods/${foodId(ndb)}`);
  assert.equal(res.status, 200, `NDB ${ndb}: ${res.text}`);
  return (res.body as { food: ApiFood }).food;
}

async function total(server: TestServer, path: string): Promise<number> {
  return ((await server.get(path)).body as { metadata: { total: number } }).metadata.total;
}

describe('usda-sr: the bundled SR21 files (abbreviated layout)', () => {
  test('all 7,413 foods, their manufacturers as brands, a browsable tree and the tag vocabulary', async () => {
    assert.match(sr21Summary, /imported 7413 foods: 7413 added, 0 changed, 0 unchanged, 0 skipped; brands, categories and tags: 461 added, 0 changed, 0 unchanged;/);
    assert.equal(await total(sr21, '/v1/foods?limit=1'), 7413);
    assert.equal(await total(sr21, '/v1/brands?region=us&limit=1'), 61, '60 manufacturers and the generic brand');
    assert.equal(await total(sr21, '/v1/categories?is-leaf=false&limit=1'), 24, 'one top category per food group');
    assert.equal(await total(sr21, '/v1/tags?limit=1'), 12);
    assert.equal(await total(sr21, `/v1/foods?brands=!${GENERIC_US}&limit=1`), 1239, 'foods with a ManufacName');
  });

  test('NDB 01009 Cheese, cheddar, value by value against its ABBREV and WEIGHT rows', async () => {
    // ABBREV: Energ_Kcal 403, Protein 24.90, Lipid_Tot 33.14, Carbohydrt 1.28, Fiber_TD 0.0, Sugar_Tot 0.52,
    // Calcium 721, Iron 0.68, Potassium 98, Sodium 621, Vit_C 0.0, Vit_A_IU 1002, FA_Sat 21.092,
    // FA_Mono 9.391, FA_Poly 0.942, Cholestrl 105.
    const cheddar = await food(sr21, '01009');
    assert.equal(cheddar.name, 'Cheese, cheddar');
    assert.equal(cheddar.brand.id, GENERIC_US);
    assert.deepEqual(cheddar.category.hierarchy.map((h) => h.name), ['Dairy and Egg Products', 'Cheese']);
    assert.equal(cheddar.classification, 'Cheese, cheddar');
    assert.equal(cheddar.mass, 100);
    assert.deepEqual(cheddar.nutrients, {
      protein: 24.9, fat: 33.14, totalCarbs: 1.28, fiber: 0, sugar: 0.52, calcium: 721, iron: 0.68, potassium: 98, sodium: 621,
      vitaminC: 0, vitaminA: 1002, satFat: 21.092, monoUnsatFat: 9.391, polyUnsatFat: 0.942, cholesterol: 105,
      energy: 1686.152, netCarbs: 1.28,
    });
    assert.deepEqual(cheddar.servings, [
      { name: '100 g', scale: 1, type: 'mass', isDefault: true },
      { name: '1 cup, diced', scale: 1.32, type: 'mass', isDefault: false },
      { name: '1 cup, melted', scale: 2.44, type: 'mass', isDefault: false },
      { name: '1 cup, shredded', scale: 1.13, type: 'mass', isDefault: false },
      { name: '1 oz', scale: 0.2835, type: 'mass', isDefault: false },
      { name: '1 cubic inch', scale: 0.17, type: 'mass', isDefault: false },
      { name: '1 slice (1 oz)', scale: 0.28, type: 'mass', isDefault: false },
    ]);
    assert.deepEqual(cheddar.upcs, {});
  });

  test('a branded food: Kellogg cereal under its manufacturer, classification without the brand', async () => {
    const bran = await food(sr21, '08001');
    assert.equal(bran.brand.name, 'Kellogg, Co.');
    assert.equal(bran.classification, 'Cereals ready-to-eat');
    assert.deepEqual(bran.category.hierarchy.map((h) => h.name), ['Breakfast Cereals', 'Cereals ready-to-eat']);
  });

  test('search finds real foods: cheddar, grouped by classification', async () => {
    const res = await sr21.get('/v1/foods?query=cheddar&grouping=classification&fields=name,grouping&limit=100');
    const foods = (res.body as { foods: { name: string; grouping: { name: string } }[] }).foods;
    assert.ok(foods.some((f) => f.name === 'Cheese, cheddar' && f.grouping.name === 'Cheese, cheddar'));
    assert.ok(foods.length >= 10);
  });

  test('re-importing changes nothing: same ids, no revision moves, same database', async () => {
    const copy = join(dir, 'sr21-again.db');
    copyFileSync(sr21Db, copy);
    const before = snapshot(copy);
    const again = await importInto(copy, 'usda-sr', [SR21]);
    assert.match(again.stdout, /imported 7413 foods: 0 added, 0 changed, 7413 unchanged, 0 skipped; brands, categories and tags: 0 added, 0 changed, 461 unchanged;/);
    assert.equal(snapshot(copy), before);
  });
});

describe('usda-sr: the SR28 slice (full layout)', () => {
  test('counts: 60 foods, 4 manufacturers, a top category per group, a leaf per kind', async () => {
    assert.equal(await total(sr28, '/v1/foods?limit=1'), 60);
    assert.deepEqual((await sr28.get('/v1/brands?region=us&fields=name')).body, {
      metadata: { total: 5, limit: 20, offset: 0 },
      brands: [{ name: "Applebee's" }, { name: 'Anheuser-Busch, Inc.' }, { name: 'Average All Brands' }, { name: 'Kellogg, Co.' }, { name: 'Post Foods, LLC' }]
        .sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1)),
    });
    assert.equal(await total(sr28, '/v1/categories?is-leaf=false&limit=1'), 25);
    const leaves = (await sr28.get('/v1/categories?is-leaf=true&limit=100&fields=name')).body as { categories: { name: string }[] };
    // Only Chicken has 3 foods in the slice; smaller kinds sit in their group's "Other …" leaf.
    assert.equal(leaves.categories.length, 25);
    assert.deepEqual(leaves.categories.filter((c) => !c.name.startsWith('Other ')).map((c) => c.name), ['Chicken']);
    assert.deepEqual((await food(sr28, '05001')).category.hierarchy.map((h) => h.name), ['Poultry Products', 'Chicken']);
    assert.deepEqual((await food(sr28, '01001')).category.hierarchy.map((h) => h.name), ['Dairy and Egg Products', 'Other Dairy and Egg Products']);
  });

  test('NDB 01123 egg: kcal → kJ, vitamin A in IU, omega-3 as the sum of ALA, EPA, DPA, DHA in mg, refuse note', async () => {
    // NUT_DATA: 208 143 kcal, 203 12.56, 204 9.51, 205 0.72, 291 0.0, 307 142, 318 540, 605 0.038,
    // 221 0.0, 262 0, n-3: 851 0.036 + 629 0.000 + 631 0.007 + 621 0.058 = 0.101 g.
    const egg = await food(sr28, '01123');
    assert.equal(egg.name, 'Egg, whole, raw, fresh');
    assert.equal(egg.nutrients['energy'], 598.312);
    assert.equal(egg.nutrients['protein'], 12.56);
    assert.equal(egg.nutrients['fat'], 9.51);
    assert.equal(egg.nutrients['sodium'], 142);
    assert.equal(egg.nutrients['vitaminA'], 540);
    assert.equal(egg.nutrients['transFat'], 0.038);
    assert.equal(egg.nutrients['omega3Fat'], 101);
    assert.equal(egg.nutrients['netCarbs'], 0.72);
    assert.equal(egg.nutrients['alcohol'], 0);
    assert.equal(egg.nutrients['caffeine'], 0);
    assert.equal(egg.note, 'Refuse: 12% (Shell)');
    assert.deepEqual(egg.tags.map((t) => t.name), ['Raw']);
    assert.deepEqual(egg.servings.map((s) => [s.name, s.scale]), [
      ['100 g', 1], ['1 large', 0.5], ['1 extra large', 0.56], ['1 jumbo', 0.63], ['1 cup (4.86 large eggs)', 2.43], ['1 medium', 0.44], ['1 small', 0.38],
    ]);
  });

  test('NDB 15001 anchovy: omega-3 from EPA and DHA', async () => {
    const anchovy = await food(sr28, '15001');
    assert.equal(anchovy.nutrients['omega3Fat'], 1478);
    assert.equal(anchovy.nutrients['energy'], 548.104);
    assert.deepEqual(anchovy.servings.map((s) => [s.name, s.scale]), [['100 g', 1], ['3 oz', 0.85]]);
  });

  test('NDB 12061 almonds: netCarbs = totalCarbs − fiber; common names as otherNames', async () => {
    const almonds = await food(sr28, '12061');
    assert.equal(almonds.nutrients['totalCarbs'], 21.55);
    assert.equal(almonds.nutrients['fiber'], 12.5);
    assert.equal(almonds.nutrients['netCarbs'], 9.05);
    assert.equal(almonds.nutrients['energy'], 2422.536);
    assert.equal(almonds.note, 'Refuse: 60% (Shells)');
  });

  test('NDB 14004 Budweiser: manufacturer brand, alcohol, fluid-ounce servings', async () => {
    const beer = await food(sr28, '14004');
    assert.equal(beer.brand.name, 'Anheuser-Busch, Inc.');
    assert.equal(beer.nutrients['alcohol'], 3.9);
    assert.equal(beer.classification, 'Alcoholic beverage, beer');
    assert.deepEqual(beer.servings.map((s) => [s.name, s.scale]), [['100 g', 1], ['1 fl oz', 0.298], ['12 fl oz', 3.57]]);
  });

  test('NDB 36000 Applebee\'s: common names split into otherNames', async () => {
    const steak = await food(sr28, '36000');
    assert.deepEqual(steak.otherNames, ['family style', 'applebees']);
    assert.equal(steak.brand.name, "Applebee's");
  });

  test('tags come from the description and the group', async () => {
    assert.deepEqual((await food(sr28, '16002')).tags.map((t) => t.name), ['Cooked', 'Unsalted']);
    assert.deepEqual((await food(sr28, '21002')).tags.map((t) => t.name), ['Fast food']);
    assert.deepEqual((await food(sr28, '03001')).tags.map((t) => t.name), ['Baby food']);
    assert.deepEqual((await food(sr28, '06001')).tags.map((t) => t.name), ['Canned']);
  });

  test('--region au puts everything in au under the au generic brand, with other ids', async () => {
    const db = join(dir, 'au.db');
    await importInto(db, 'usda-sr', [SR28], ['--region', 'au']);
    const server = await startTestServer(db);
    try {
      assert.equal(await total(server, '/v1/foods?region=au&limit=1'), 60);
      assert.equal(await total(server, '/v1/foods?region=us&limit=1'), 0);
      const egg = (await server.get(`/v1/foods/${foodId('01123', 'au')}`)).body as { food: ApiFood };
      assert.equal(egg.food.brand.id, '4a497106-5e8c-4729-9451-667c2b57514b');
      assert.equal((await server.get(`/v1/foods/${foodId('01123')}`)).status, 404);
    } finally {
      await server.close();
    }
  });

  test('gzip-compressed files read the same', async () => {
    const gz = join(dir, 'sr28-gz');
    mkdirSync(gz);
    for (const name of readdirSync(SR28).filter((n) => n.endsWith('.txt'))) writeFileSync(join(gz, `${name}.gz`), gzipSync(readFileSync(join(SR28, name))));
    const db = join(dir, 'gz.db');
    await importInto(db, 'usda-sr', [gz]);
    const a = snapshot(db).replace(/"updated_at":\d+|"value":"\d{13}"/g, '');
    const b = snapshot(sr28Db).replace(/"updated_at":\d+|"value":"\d{13}"/g, '');
    assert.equal(a, b);
  });
});

describe('usda-sr: malformed source rows', () => {
  /** A copy of the SR28 slice with one file's text changed. */
  function broken(name: string, file: string, edit: (text: string) => string): string {
    const target = join(dir, name);
    mkdirSync(target, { recursive: true });
    for (const entry of readdirSync(SR28).filter((n) => n.endsWith('.txt'))) {
      const text = readFileSync(join(SR28, entry), 'latin1');
      writeFileSync(join(target, entry), entry === file ? edit(text) : text, 'latin1');
    }
    return target;
  }

  const cases: [string, string, (t: string) => string, RegExp][] = [
    ['field-count', 'FOOD_DES.txt', (t) => t.replace('~01001~^~0100~^~Butter, salted~^', '~01001~^~0100~^'), /FOOD_DES\.txt:1: expected 14 fields, found 13/],
    ['not-a-number', 'NUT_DATA.txt', (t) => t.replace('~01001~^~203~^0.85^', '~01001~^~203~^zero^'), /NUT_DATA\.txt:1: nutrient 203 is not a number: 'zero' \(food 01001 left out\)/],
    ['unknown-group', 'FOOD_DES.txt', (t) => t.replace('~01002~^~0100~', '~01002~^~9900~'), /FOOD_DES\.txt:2: unknown food group '9900' for NDB 01002/],
    ['weight-unknown-food', 'WEIGHT.txt', (t) => `~99999~^1^1^~cup~^100^^\r\n${t}`, /WEIGHT\.txt:1: WEIGHT row for unknown NDB '99999'/],
  ];

  for (const [name, file, edit, message] of cases) {
    test(`${name}: the import fails, names file and line, and changes nothing`, async () => {
      const folder = broken(name, file, edit);
      const db = join(dir, `${name}.db`);
      copyFileSync(sr28Db, db);
      const before = snapshot(db);
      const result = await runCli(['import', 'usda-sr', folder, '--db', db]);
      assert.equal(result.code, 1);
      assert.match(result.stderr, message);
      assert.equal(snapshot(db), before);
    });
  }

  test('--skip-invalid reports each bad row and imports the rest', async () => {
    const folder = broken('skip', 'NUT_DATA.txt', (t) => t.replace('~01001~^~203~^0.85^', '~01001~^~203~^zero^'));
    const result = await runCli(['import', 'usda-sr', folder, '--db', join(dir, 'skip.db'), '--skip-invalid']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /skipped NUT_DATA\.txt:1: nutrient 203 is not a number/);
    assert.match(result.stdout, /1 skipped/);
    const server = await startTestServer(join(dir, 'skip.db'));
    try {
      assert.equal(await total(server, '/v1/foods?limit=1'), 59, 'butter, whose row was bad, is left out');
    } finally {
      await server.close();
    }
  });

  test('a folder without the needed files is a clear error', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    const result = await runCli(['import', 'usda-sr', empty, '--db', join(dir, 'none.db')]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /expected FOOD_DES, WEIGHT and either ABBREV or NUT_DATA \+ NUTR_DEF/);
  });
});
