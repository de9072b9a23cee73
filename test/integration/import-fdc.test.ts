import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { importInto, runCli } from '../helpers/cli.js';
import { fixturePath, tempDir } from '../helpers/paths.js';
import { snapshot } from '../helpers/db-snapshot.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const FOUNDATION = fixturePath('usda-fdc/foundation-2023-04');
const BRANDED_CSV = fixturePath('usda-fdc/branded-reserialized/branded_food.csv');

let dir: string;
let cleanup: () => void;

before(() => {
  ({ dir, cleanup } = tempDir());
});

after(() => cleanup());

interface ApiFood {
  foodId: string; name: string; region: string; brand: { name: string; region: string }; classification: string;
  description?: string; mass?: number; volume?: number; tags: { name: string }[];
  category: { name: string; hierarchy: { name: string }[]; isLeaf: boolean };
  servings: { name: string; scale: number; type: string }[]; upcs: Record<string, { servingIndex: number; quantity: number }>;
  nutrients: Record<string, number>;
}

async function allFoods(server: TestServer, query = ''): Promise<ApiFood[]> {
  const res = await server.get(`/v1/foods?limit=100${query}`);
  assert.equal(res.status, 200);
  return (res.body as { foods: ApiFood[] }).foods;
}

/** A copy of the Foundation slice with one line of one file replaced, for the malformed-input tests. */
function brokenCopy(name: string, file: string, line: number, edit: (text: string) => string): string {
  const copy = join(dir, name);
  cpSync(FOUNDATION, copy, { recursive: true });
  const lines = readFileSync(join(copy, file), 'utf8').split('\n');
  lines[line - 1] = edit(lines[line - 1]!);
  writeFileSync(join(copy, file), lines.join('\n'));
  return copy;
}

describe('import fdc: the real Foundation Foods slice (April 2023)', () => {
  let server: TestServer;
  let summary: { stdout: string; stderr: string };
  const db = (): string => join(dir, 'foundation.db');

  before(async () => {
    summary = await importInto(db(), 'fdc', [FOUNDATION]);
    server = await startTestServer(db());
  });
  after(() => server.close());

  test('30 foundation foods; the 11 support rows of food.csv are reported per data type, not imported', async () => {
    // 30 foods, 17 food-group categories and 2 tags (Raw, Frozen) in use.
    assert.match(summary.stdout, /imported 30 foods: 30 added, 0 changed, 0 unchanged, 3 skipped; brands, categories and tags: 19 added, 0 changed, 0 unchanged;/);
    assert.match(summary.stderr, /skipped food\.csv: 3 sample_food rows left out/);
    assert.match(summary.stderr, /skipped food\.csv: 4 market_acquisition rows left out/);
    assert.match(summary.stderr, /skipped food\.csv: 4 sub_sample_food rows left out/);
    const foods = await allFoods(server);
    assert.equal(foods.length, 30);
    assert.ok(foods.every((f) => f.region === 'us' && f.brand.name === 'Average All Brands'));
    // Record 321829 is a sample_food whose quoted description spans two lines: it must not leak in.
    assert.ok(!foods.some((f) => f.name.includes('Pass 2')));
  });

  test('Cheese, swiss (fdc 746767), value by value against its food_nutrient and food_portion rows', async () => {
    const [food] = await allFoods(server, '&query=swiss');
    assert.ok(food);
    assert.equal(food.name, 'Cheese, swiss');
    assert.deepEqual(food.category.hierarchy.map((c) => c.name), ['Dairy and Egg Products']); // food_category 1
    assert.equal(food.classification, 'Cheese, swiss');
    assert.equal(food.mass, 100);
    // food_portion rows 187498/187499: 1.0 × unit 1050 (slice), modifier regular/thin, 21.9 g / 10.9 g.
    assert.deepEqual(food.servings, [
      { name: '100 g', scale: 1, type: 'mass', isDefault: true },
      { name: '1 slice, regular', scale: 0.219, type: 'mass', isDefault: false },
      { name: '1 slice, thin', scale: 0.109, type: 'mass', isDefault: false },
    ]);
    // food_nutrient rows: 208 Energy 393.0 KCAL (also 268: 1640 kJ, 957/958: 393), 203 protein 27.0 G,
    // 204 fat 31.0, 205 carbs 1.44, 269.3 sugars 0.0, 606 sat 18.2, 605 trans 0.993, 645 mono 7.26,
    // 646 poly 1.14, 601 cholesterol 93.0 MG, 307 sodium 185.0 MG, 301 calcium 890.0, 303 iron 0.13,
    // 306 potassium 71.0; n-3: 851 ALA 0.125 + 629 EPA 0.009 + 631 DPA 0.018 + 621 DHA 0.0 G.
    assert.deepEqual(food.nutrients, {
      energy: 1644.312, protein: 27, fat: 31, totalCarbs: 1.44, sugar: 0, satFat: 18.2, transFat: 0.993,
      monoUnsatFat: 7.26, polyUnsatFat: 1.14, cholesterol: 93, sodium: 185, calcium: 890, iron: 0.13, potassium: 71,
      omega3Fat: 152,
    });
  });

  test('Hummus (fdc 321358): fiber, netCarbs and vitamin C; carbs by difference over by summation', async () => {
    const [food] = await allFoods(server, '&query=hummus');
    assert.ok(food);
    // 205 carbs 14.9 (205.2 by summation 13.9 is the fallback), 291 fiber 5.4, 401 vitamin C 0.0,
    // 269.3 sugars 0.34; portion 118804: 2.0 × tablespoon, 33.9 g.
    assert.equal(food.nutrients['totalCarbs'], 14.9);
    assert.equal(food.nutrients['fiber'], 5.4);
    assert.equal(food.nutrients['netCarbs'], 9.5);
    assert.equal(food.nutrients['vitaminC'], 0);
    assert.equal(food.nutrients['sugar'], 0.34);
    assert.equal(food.nutrients['energy'], 958.136); // 229 kcal × 4.184
    assert.deepEqual(food.servings[1], { name: '2 tablespoon', scale: 0.339, type: 'mass', isDefault: false });
  });

  test('Oil, olive, extra virgin (fdc 748608): only what the source measured, nothing made up', async () => {
    const [food] = await allFoods(server, '&query=olive%20oil');
    assert.ok(food);
    // The slice holds 4 of our numbers for it: 606 15.4, 645 69.2, 646 9.07, 851 ALA 0.651 G.
    assert.deepEqual(food.nutrients, { satFat: 15.4, monoUnsatFat: 69.2, polyUnsatFat: 9.07, omega3Fat: 651 });
    assert.deepEqual(food.servings[1], { name: '100 milliliter', scale: 0.907, type: 'mass', isDefault: false });
  });

  test('tags come from the description words, with the usda-sr vocabulary', async () => {
    const raw = await allFoods(server, '&query=raw');
    assert.ok(raw.length >= 6);
    assert.ok(raw.filter((f) => /\braw\b/i.test(f.name)).every((f) => f.tags.some((t) => t.name === 'Raw')));
  });

  test('importing the same download again changes nothing', async () => {
    const before = snapshot(db());
    const again = await importInto(db(), 'fdc', [FOUNDATION]);
    assert.match(again.stdout, /imported 30 foods: 0 added, 0 changed, 30 unchanged, 3 skipped; brands, categories and tags: 0 added, 0 changed, 19 unchanged;/);
    assert.equal(snapshot(db()), before);
  });
});

describe('import fdc: malformed input is reported with file and line, and changes nothing', () => {
  test('a bad amount fails the import naming food_nutrient.csv and its line; --skip-invalid leaves that food out', async () => {
    const db = join(dir, 'malformed.db');
    await importInto(db, 'fdc', [FOUNDATION]);
    const before = snapshot(db);
    // Line 1840 is food 746767's protein row (203).
    const copy = brokenCopy('bad-amount', 'food_nutrient.csv', 1840, (l) => l.replace('"27.0"', '"27,0"'));
    const failed = await runCli(['import', 'fdc', copy, '--db', db, '--replace']);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /food_nutrient\.csv:1840: amount of nutrient 203 is not a number: '27,0' \(food 746767 left out\)/);
    assert.equal(snapshot(db), before);

    const skipped = await importInto(db, 'fdc', [copy], ['--replace', '--skip-invalid']);
    assert.match(skipped.stderr, /food_nutrient\.csv:1840/);
    const server = await startTestServer(db);
    try {
      const foods = await allFoods(server);
      assert.equal(foods.length, 29);
      assert.ok(!foods.some((f) => f.name === 'Cheese, swiss'));
    } finally {
      await server.close();
    }
  });

  test('line numbers count the physical lines of quoted multi-line fields', async () => {
    // food.csv record 321829 spans lines 13–14, so Cheese, swiss is on physical line 33.
    const copy = brokenCopy('bad-id', 'food.csv', 33, (l) => l.replace('"746767"', '"74x767"'));
    const result = await runCli(['import', 'fdc', copy, '--db', join(dir, 'bad-id.db')]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /food\.csv:33: fdc_id must be a whole number: '74x767'/);
  });

  test('a row with a missing field, broken quoting, a food twice and a missing column', async () => {
    const short = brokenCopy('short-row', 'food_portion.csv', 20, (l) => l.split(',').slice(0, 5).join(','));
    const r1 = await runCli(['import', 'fdc', short, '--db', join(dir, 'short.db')]);
    assert.match(r1.stderr, /food_portion\.csv:20: expected 11 fields, found 5 \(food 746767 left out\)/);

    const unclosed = brokenCopy('unclosed', 'food.csv', 40, (l) => l.replace('"Broccoli, raw"', '"Broccoli, raw"x'));
    const r2 = await runCli(['import', 'fdc', unclosed, '--db', join(dir, 'unclosed.db')]);
    assert.equal(r2.code, 1);
    assert.match(r2.stderr, /food\.csv:40: not valid CSV: Invalid Closing Quote/);

    const twice = brokenCopy('twice', 'food.csv', 42, (l) => `${l}\n"746767","foundation_food","Cheese, swiss","1","2019-12-16"`);
    const r4 = await runCli(['import', 'fdc', twice, '--db', join(dir, 'twice.db')]);
    assert.equal(r4.code, 1);
    assert.match(r4.stderr, /food\.csv:43: fdc_id 746767 appears twice \(food 746767 left out\)/);

    const noColumn = brokenCopy('no-column', 'food.csv', 1, (l) => l.replace('"description"', '"desc"'));
    const r3 = await runCli(['import', 'fdc', noColumn, '--db', join(dir, 'no-column.db')]);
    assert.equal(r3.code, 1);
    assert.match(r3.stderr, /food\.csv: no column 'description'/);
  });
});

describe('import fdc: Branded Foods rows (a pandas re-save: quotes only where needed)', () => {
  let server: TestServer;
  let summary: { stdout: string; stderr: string };
  let brandedDir: string;

  before(async () => {
    // The branded sample comes without its food.csv: this one only gives each row a type and a
    // placeholder description, so that everything asserted below comes from the real branded rows.
    brandedDir = join(dir, 'branded');
    mkdirSync(brandedDir);
    cpSync(BRANDED_CSV, join(brandedDir, 'branded_food.csv'));
    const ids = readFileSync(BRANDED_CSV, 'utf8').split('\n').slice(1).map((l) => /^(\d+),/.exec(l)?.[1]).filter((id) => id !== undefined);
    assert.equal(ids.length, 100);
    writeFileSync(join(brandedDir, 'food.csv'), ['fdc_id,data_type,description,food_category_id,publication_date',
      ...ids.map((id) => `${id},branded_food,Branded food ${id},,2020-11-13`)].join('\n'));
    summary = await importInto(join(dir, 'branded.db'), 'fdc', [brandedDir, FOUNDATION]);
    server = await startTestServer(join(dir, 'branded.db'));
  });
  after(() => server.close());

  test('93 US foods; the 7 New Zealand foods are skipped with their country', async () => {
    assert.match(summary.stdout, /10 skipped/); // 7 NZ + 3 support data types of the Foundation folder
    assert.match(summary.stderr, /skipped food\.csv:\d+: fdc_id 2182736 is sold in New Zealand, not in Australia or the United States/);
    const total = ((await server.get('/v1/foods?limit=1&region=us')).body as { metadata: { total: number } }).metadata.total;
    assert.equal(total, 93 + 30);
    assert.equal(((await server.get('/v1/foods?limit=1&region=au')).body as { metadata: { total: number } }).metadata.total, 0);
  });

  test('Kellogg fdc 344774: brand owner, barcode with its leading zeros, label serving, category, ingredients', async () => {
    // Row 76: brand_owner "Kellogg Company US", gtin_upc 00024100122615, serving 42.0 g, household "1 Pouch",
    // branded_food_category "Biscuits/Cookies (Shelf Stable)", ingredients 374 characters.
    const [food] = await allFoods(server, '&query=344774');
    assert.ok(food);
    assert.equal(food.brand.name, 'Kellogg Company US');
    assert.deepEqual(food.category.hierarchy.map((c) => c.name), ['Branded foods', 'Biscuits/Cookies (Shelf Stable)']);
    assert.equal(food.classification, 'Biscuits/Cookies (Shelf Stable)');
    assert.deepEqual(food.servings, [{ name: '100 g', scale: 1, type: 'mass', isDefault: true }, { name: '1 Pouch (42 g)', scale: 0.42, type: 'mass', isDefault: false }]);
    assert.deepEqual(food.upcs, { '00024100122615': { servingIndex: 1, quantity: 1 } });
    assert.equal(food.description?.length, 374);
    assert.match(food.description ?? '', /^INGREDIENTS|^[A-Z]/);
  });

  test('liquids: per 100 mL with a volume serving (Wal-Mart soda, fdc 1116350, 360.0 ml)', async () => {
    const [food] = await allFoods(server, '&query=1116350');
    assert.ok(food);
    assert.equal(food.volume, 100);
    assert.equal(food.mass, undefined);
    assert.deepEqual(food.servings, [{ name: '100 mL', scale: 1, type: 'volume', isDefault: true }, { name: '360 mL', scale: 3.6, type: 'volume', isDefault: false }]);
    assert.deepEqual(food.category.hierarchy.map((c) => c.name), ['Branded foods', 'Soda']);
  });

  test('a household serving that states its weight is kept as printed; no category → Other branded foods', async () => {
    // Row 85: Conagra fdc 346506, 369.0 g, "1 Meal (369g)", branded_food_category empty.
    const [food] = await allFoods(server, '&query=346506');
    assert.ok(food);
    assert.equal(food.brand.name, 'Conagra Brands');
    assert.deepEqual(food.servings[1], { name: '1 Meal (369g)', scale: 3.69, type: 'mass', isDefault: false });
    assert.deepEqual(food.category.hierarchy.map((c) => c.name), ['Branded foods', 'Other branded foods']);
  });

  test('one brand per owner: stray spaces in the source do not make a second one', async () => {
    // Row 4: brand_owner "Hormel Foods Corporation " (trailing space).
    const res = await server.get('/v1/brands?query=hormel&limit=10');
    const brands = (res.body as { brands: { name: string }[] }).brands;
    assert.deepEqual(brands.map((b) => b.name), ['Hormel Foods Corporation']);
  });

  test('branded_food.csv without its food.csv: every row is reported, nothing imported', async () => {
    const alone = join(dir, 'branded-alone');
    mkdirSync(alone);
    cpSync(BRANDED_CSV, join(alone, 'branded_food.csv'));
    const result = await runCli(['import', 'fdc', alone, '--db', join(dir, 'alone.db')]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /branded_food\.csv:2: fdc_id 1106032 has no food\.csv row/);
  });
});
