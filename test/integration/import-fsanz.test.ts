import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importInto, runCli } from '../helpers/cli.js';
import { snapshot } from '../helpers/db-snapshot.js';
import { importedServer } from '../helpers/fixture-server.js';
import { fixturePath } from '../helpers/paths.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { GENERIC_BRAND_IDS } from '../../src/domain/regions.js';
import { readCsv } from '../../src/importers/csv-rows.js';

/** The summary line's counts of every kind together (foods, brands, categories, tags), as `imported: A added, …`. */
function totals(stdout: string): string {
  const n = /imported \d+ foods?: (\d+) added, (\d+) changed, (\d+) unchanged, (\d+) skipped; brands, categories and tags: (\d+) added, (\d+) changed, (\d+) unchanged/
    .exec(stdout)?.slice(1).map(Number);
  assert.ok(n, stdout);
  return `imported: ${n[0]! + n[4]!} added, ${n[1]! + n[5]!} changed, ${n[2]! + n[6]!} unchanged, ${n[3]!} skipped`;
}

const AUSNUT = fixturePath('au-fsanz/ausnut-2011-13-food-nutrient-database.csv');
/** The AUSNUT sample served; its temporary directory holds every other database of this file too. */
const ausnut = importedServer('ausnut', [AUSNUT]);

interface ApiFood {
  foodId: string; name: string; region: string; brand: { id: string; name: string }; classification: string; note?: string;
  category: { name: string; hierarchy: { name: string }[]; isLeaf: boolean };
  mass?: number; volume?: number; servings: { name: string; scale: number; type: string }[];
  nutrients: Record<string, number>;
}

/** Every record of a collection (`foods`, `categories`), in the API's (name, id) order. */
async function all<T>(from: TestServer, resource: string): Promise<T[]> {
  const records: T[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = (await from.get(`/v1/${resource}?limit=100&offset=${offset}`)).body as Record<string, unknown> & { metadata: { total: number } };
    records.push(...(page[resource] as T[]));
    if (records.length >= page.metadata.total) return records;
  }
}

const allFoods = (from: TestServer): Promise<ApiFood[]> => all<ApiFood>(from, 'foods');

async function foodNamed(from: TestServer, name: string): Promise<ApiFood> {
  const food = (await allFoods(from)).find((f) => f.name === name);
  assert.ok(food, `no food named ${name}`);
  return food;
}

describe('import ausnut: the real AUSNUT 2011-13 sample', () => {
  test('120 foods and their 181 categories (21 major, 64 sub-major, 96 minor groups); no brand record', async () => {
    assert.match(ausnut.imported.stdout, /imported 120 foods: 120 added, 0 changed, 0 unchanged, 0 skipped; brands, categories and tags: 181 added, 0 changed, 0 unchanged;/);
    const total = async (path: string): Promise<number> => ((await ausnut.server.get(path)).body as { metadata: { total: number } }).metadata.total;
    assert.equal(await total('/v1/foods?region=au&limit=1'), 120);
    assert.equal(await total('/v1/categories?region=au&limit=1'), 181);
    assert.equal(await total('/v1/categories?region=au&is-leaf=true&limit=1'), 96);
    assert.equal(await total('/v1/brands?region=au&limit=1'), 1, 'only the generic brand');
  });

  test('Chai latte, value by value against its row (line 5)', async () => {
    // 01B10489,11102003,"Chai latte, prepared from chai mix powder & reduced fat cows milk",,329 kJ, protein 4.4,
    // total fat 1.8, available carbohydrates with/without sugar alcohols 11.5/11.5, total sugars 10, fibre 0,
    // retinol 20 µg, β-carotene equivalents 8 µg, calcium 143, iron 0.04, potassium 204, sodium 76 mg,
    // caffeine 8, cholesterol 7, saturated 1.14, mono 0.49, poly 0.08 g, ALA 0.02 g, LC n-3 0.432 mg, trans 47.78 mg.
    const food = await foodNamed(ausnut.server, 'Chai latte, prepared from chai mix powder & reduced fat cows milk');
    assert.equal(food.region, 'au');
    assert.deepEqual(food.brand, { id: GENERIC_BRAND_IDS.au, name: 'Average All Brands', region: 'au' });
    assert.deepEqual(food.nutrients, {
      energy: 329, protein: 4.4, fat: 1.8, totalCarbs: 11.5, netCarbs: 11.5, sugarAlcohol: 0, sugar: 10, fiber: 0, alcohol: 0,
      vitaminA: 80, vitaminC: 0, calcium: 143, iron: 0.04, potassium: 204, sodium: 76, caffeine: 8, cholesterol: 7,
      satFat: 1.14, monoUnsatFat: 0.49, polyUnsatFat: 0.08, omega3Fat: 20.432, transFat: 0.04778,
    });
    assert.equal(food.mass, 100);
    assert.equal(food.volume, undefined);
    assert.deepEqual(food.servings, [{ name: '100 g', scale: 1, type: 'mass', isDefault: true }]);
    assert.deepEqual(food.category.hierarchy.map((h) => h.name), ['Non-alcoholic beverages', 'Group 111', 'Group 11102']);
    assert.equal(food.category.isLeaf, true);
    assert.equal(food.classification, 'Chai latte');
  });

  test('Pumpkin: β-carotene µg to IU, sugar alcohols from the two carbohydrate columns (line 118)', async () => {
    // 13A12250,24701028: energy 196 kJ, protein 1.5, fat 0.2, available carbohydrates 8.4 with / 7.1 without sugar
    // alcohols, fibre 3, retinol 0 µg, β-carotene equivalents 710 µg, vitamin C 10, sodium 1 mg.
    const food = await foodNamed(ausnut.server, 'Pumpkin, unpeeled, fresh or frozen, boiled, microwaved or steamed, drained, with or without added fat');
    const n = food.nutrients;
    assert.deepEqual([n['energy'], n['protein'], n['fat'], n['sodium'], n['vitaminC']], [196, 1.5, 0.2, 1, 10]);
    assert.equal(n['vitaminA'], 1183.333333, '710 µg / 0.6');
    assert.equal(n['sugarAlcohol'], 1.3);
    assert.equal(n['totalCarbs'], 8.4);
    assert.equal(n['netCarbs'], 8.4, 'available carbohydrate already excludes the 3 g fibre');
    assert.deepEqual(food.category.hierarchy.map((h) => h.name), ['Vegetable products and dishes', 'Group 247', 'Group 24701']);
    assert.equal(food.classification, 'Pumpkin');
  });

  test('Blue-eye trevalla: omega-3 = ALA (g → mg) + long-chain n-3 (line 95)', async () => {
    // 05A10928,15101017: energy 371, protein 19, fat 1.3, sodium 98, cholesterol 54, ALA 0.01 g, LC n-3 260.26 mg.
    const n = (await foodNamed(ausnut.server, 'Blue-eye trevalla, flesh, raw')).nutrients;
    assert.deepEqual([n['energy'], n['protein'], n['fat'], n['sodium'], n['cholesterol']], [371, 19, 1.3, 98, 54]);
    assert.equal(n['omega3Fat'], 270.26);
    assert.equal(n['vitaminA'], 6.666667, 'retinol 2 µg / 0.3');
  });

  test('the survey flag and the source keys are kept in the note', async () => {
    const food = (await allFoods(ausnut.server)).find((f) => f.name === 'Coffee, not further defined');
    assert.ok(food);
    const detailed = (await ausnut.server.get(`/v1/foods/${food.foodId}?fields=note`)).body as { food: { note: string } };
    assert.equal(detailed.food.note, 'AUSNUT 2011-13 Food ID 01B10544, Survey ID 11202040; survey flag: NNPAS and NATSINPAS non-remote only');
  });

  test('re-importing changes nothing', async () => {
    const again = await importInto(join(ausnut.dir, 'ausnut.db'), 'ausnut', [AUSNUT]);
    assert.match(totals(again.stdout), /imported: 0 added, 0 changed, 301 unchanged, 0 skipped/);
  });

  test('a text in a number column fails with file:line and changes nothing; --skip-invalid imports the rest', async () => {
    const lines = readFileSync(AUSNUT, 'utf8').split('\r\n');
    // Line 5 is Chai latte: …,329,329,81.3,4.4,1.8,… (energy ×2, moisture, protein 4.4, fat).
    assert.match(lines[4]!, /^01B10489,.*,329,329,81\.3,4\.4,1\.8,/);
    lines[4] = lines[4]!.replace(',81.3,4.4,1.8,', ',81.3,abc,1.8,');
    lines[8] = '01B30356,11301001';
    const bad = join(ausnut.dir, 'bad.csv');
    writeFileSync(bad, lines.join('\r\n'));
    const db = join(ausnut.dir, 'bad.db');
    await importInto(db, 'ausnut', [AUSNUT]);
    const before = snapshot(db);
    const failed = await runCli(['import', 'ausnut', bad, '--db', db, '--replace']);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /import failed, nothing was changed: bad\.csv:5: Food ID 01B10489: protein \(g\): not a number: 'abc'/);
    assert.equal(snapshot(db), before, 'the database changed');

    // Chai latte alone used Group 111 and Group 11102: 118 foods and 179 categories remain.
    const skipped = await importInto(join(ausnut.dir, 'skip.db'), 'ausnut', [bad], ['--skip-invalid']);
    assert.match(totals(skipped.stdout), /imported: 297 added, 0 changed, 0 unchanged, 2 skipped/);
    assert.match(skipped.stderr, /skipped bad\.csv:5: Food ID 01B10489: protein \(g\): not a number: 'abc'/);
    assert.match(skipped.stderr, /skipped bad\.csv:9: expected 57 fields, found 2/);
  });

  test('a file without a required column is refused, naming the column', async () => {
    const afcd = fixturePath('au-fsanz/afcd-release2-nutrient-file.solids-per-100g.trimmed.csv');
    const failed = await runCli(['import', 'ausnut', afcd, '--db', join(ausnut.dir, 'wrong.db')]);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /afcd-release2-nutrient-file\.solids-per-100g\.trimmed\.csv: no 'Food ID' column; is this an AUSNUT food nutrient CSV\?/);
  });
});

const XLSX = fixturePath('au-fsanz/afcd-release2-nutrient-file.trimmed.xlsx');
const SOLIDS = fixturePath('au-fsanz/afcd-release2-nutrient-file.solids-per-100g.trimmed.csv');
const LIQUIDS = fixturePath('au-fsanz/afcd-release2-nutrient-file.liquids-per-100ml.trimmed.csv');
const SOLIDS_SHEET = "afcd-release2-nutrient-file.trimmed.xlsx sheet 'All solids & liquids per 100g'";

async function csvRows(path: string): Promise<string[][]> {
  const rows: string[][] = [];
  for await (const record of readCsv(path)) rows.push([...record.fields]);
  return rows;
}

const csvLine = (fields: readonly string[]): string => fields.map((f) => (/[",\r\n]/.test(f) ? `"${f.replace(/"/g, '""')}"` : f)).join(',');

describe('import afcd: the real AFCD Release 2 sample', () => {
  let fromXlsx: TestServer;
  let fromCsv: TestServer;
  const results: Record<string, { stdout: string; stderr: string }> = {};

  before(async () => {
    results['xlsx'] = await importInto(join(ausnut.dir, 'afcd-xlsx.db'), 'afcd', [XLSX]);
    results['csv'] = await importInto(join(ausnut.dir, 'afcd-csv.db'), 'afcd', [SOLIDS, LIQUIDS]);
    fromXlsx = await startTestServer(join(ausnut.dir, 'afcd-xlsx.db'));
    fromCsv = await startTestServer(join(ausnut.dir, 'afcd-csv.db'));
  });

  after(async () => {
    await fromXlsx.close();
    await fromCsv.close();
  });

  test('136 foods (104 per 100 g, 32 per 100 mL) and 180 categories, from the workbook and from its CSVs', async () => {
    assert.match(totals(results['xlsx']!.stdout), /imported: 316 added, 0 changed, 0 unchanged, 0 skipped/);
    assert.match(totals(results['csv']!.stdout), /imported: 316 added, 0 changed, 0 unchanged, 0 skipped/);
    const foods = await allFoods(fromXlsx);
    assert.equal(foods.length, 136);
    assert.equal(foods.filter((f) => f.mass === 100 && f.volume === undefined).length, 104);
    assert.equal(foods.filter((f) => f.volume === 100 && f.mass === undefined).length, 32);
  });

  test('the xlsx and its CSV renderings give the same foods and categories, ids and revisions included', async () => {
    assert.deepEqual(await allFoods(fromCsv), await allFoods(fromXlsx));
    const categories = await all<unknown>(fromXlsx, 'categories');
    assert.equal(categories.length, 180);
    assert.deepEqual(await all<unknown>(fromCsv, 'categories'), categories);
    const again = await importInto(join(ausnut.dir, 'afcd-csv.db'), 'afcd', [XLSX]);
    assert.match(totals(again.stdout), /imported: 0 added, 0 changed, 316 unchanged, 0 skipped/);
  });

  test('Cardamom, value by value against its row (solids sheet row 2, CSV line 156)', async () => {
    // F002258,31302,"Cardamom seed, dried, ground": energy with dietary fibre 1236 kJ, protein 10.8, fat 6.7,
    // available carbohydrate 34.4 (with and without sugar alcohols), sugars 4.4, fibre 28, alcohol 0, retinol 0 µg,
    // β-carotene equivalents 22 µg, vitamin C 21, calcium 383, iron 13.97, potassium 1119, sodium 18, caffeine 0,
    // cholesterol 0 mg, saturated 2.2, mono 2.81, poly 1.39 g, C18:3w3 0.39 g, LC n-3 0 mg, trans 0 mg.
    const food = await foodNamed(fromXlsx, 'Cardamom seed, dried, ground');
    assert.deepEqual(food.nutrients, {
      energy: 1236, protein: 10.8, fat: 6.7, totalCarbs: 34.4, netCarbs: 34.4, sugarAlcohol: 0, sugar: 4.4, fiber: 28, alcohol: 0,
      vitaminA: 36.666667, vitaminC: 21, calcium: 383, iron: 13.97, potassium: 1119, sodium: 18, caffeine: 0, cholesterol: 0,
      satFat: 2.2, monoUnsatFat: 2.81, polyUnsatFat: 1.39, omega3Fat: 390, transFat: 0,
    });
    assert.deepEqual(food.servings, [{ name: '100 g', scale: 1, type: 'mass', isDefault: true }]);
    assert.deepEqual(food.category.hierarchy.map((h) => h.name), ['Miscellaneous', 'Group 313', 'Group 31302']);
    assert.equal(food.classification, 'Cardamom seed');
  });

  test("a text Classification ('31302') lands where the number 31302 does; µg and g columns converted", async () => {
    // F002893 "Chilli (chili), dried, ground", Classification stored as text: energy 1280, protein 13.4, fat 14.3,
    // sodium 2867 mg, β-carotene equivalents 15000 µg, retinol 0 µg, C18:3w3 0.44 g, LC n-3 0 mg.
    const chilli = await foodNamed(fromXlsx, 'Chilli (chili), dried, ground');
    const cardamom = await foodNamed(fromXlsx, 'Cardamom seed, dried, ground');
    assert.equal(chilli.category.name, 'Group 31302');
    assert.deepEqual(chilli.category, cardamom.category);
    const n = chilli.nutrients;
    assert.deepEqual([n['energy'], n['protein'], n['fat'], n['sodium']], [1280, 13.4, 14.3, 2867]);
    assert.equal(n['vitaminA'], 25000, '15000 µg / 0.6');
    assert.equal(n['omega3Fat'], 440, '0.44 g → mg');
  });

  test('a liquid only in the liquids sheet is per 100 mL', async () => {
    // Liquids sheet: F009577,29201,"Wine, red, shiraz": energy 338 kJ, protein 0.2, fat 0, alcohol 11.4 g, sodium 7,
    // potassium 114, iron 0.18 mg (per 100 mL).
    const food = await foodNamed(fromXlsx, 'Wine, red, shiraz');
    assert.equal(food.volume, 100);
    assert.equal(food.mass, undefined);
    assert.deepEqual(food.servings, [{ name: '100 mL', scale: 1, type: 'volume', isDefault: true }]);
    const n = food.nutrients;
    assert.deepEqual([n['energy'], n['protein'], n['fat'], n['alcohol'], n['sodium'], n['potassium'], n['iron']], [338, 0.2, 0, 11.4, 7, 114, 0.18]);
    assert.deepEqual(food.category.hierarchy.map((h) => h.name), ['Alcoholic beverages', 'Group 292', 'Group 29201']);
  });

  test('a 3-digit Classification gets a leaf of its own under its sub-major group', async () => {
    const food = await foodNamed(fromXlsx, 'Biscuit, savoury, seed based');
    assert.deepEqual(food.category.hierarchy.map((h) => h.name),
      ['Cereal based products and dishes', 'Group 132', 'Group 132, not further classified']);
    assert.equal(food.category.isLeaf, true);
    const group = (await fromXlsx.get('/v1/categories?query=group%20132&fields=name,isLeaf')).body as { categories: unknown[] };
    assert.deepEqual(group.categories, [{ name: 'Group 132', isLeaf: false }, { name: 'Group 132, not further classified', isLeaf: true }]);
  });

  test('AUSNUT and AFCD share one category tree', async () => {
    const db = join(ausnut.dir, 'both.db');
    await importInto(db, 'ausnut', [AUSNUT]);
    const both = await importInto(db, 'afcd', [XLSX]);
    // 136 foods + the 85 categories AUSNUT's sample does not use; the other 95 are AUSNUT's, unchanged.
    assert.match(totals(both.stdout), /imported: 221 added, 0 changed, 95 unchanged, 0 skipped/);
  });

  test('a food in both sheets is one food per 100 g with a 100 mL serving from its density', async () => {
    // Synthetic: the sample's two sheets share no food, so a per-100 mL row for the per-100 g
    // "Wine, white, sauvignon blanc" (F009583, energy 296 kJ) is made from it × 0.99 g/mL.
    const solids = await csvRows(SOLIDS);
    const liquids = await csvRows(LIQUIDS);
    const wine = solids.find((r) => r[0] === 'F009583')!;
    const norm = (h: string): string => h.replace(/\s+/g, ' ').trim().toLowerCase();
    const solidIndex = new Map(solids[0]!.map((h, i) => [norm(h), i]));
    const row = liquids[0]!.map((h, i) => {
      const value = wine[solidIndex.get(norm(h)) ?? -1] ?? '';
      return i < 3 || value === '' ? value : String(Number((Number(value) * 0.99).toFixed(4)));
    });
    const file = join(ausnut.dir, 'liquids-with-wine.csv');
    writeFileSync(file, `${readFileSync(LIQUIDS, 'utf8')}${csvLine(row)}\r\n`);
    const db = join(ausnut.dir, 'merged.db');
    const result = await importInto(db, 'afcd', [SOLIDS, file]);
    assert.match(totals(result.stdout), /imported: 316 added, 0 changed, 0 unchanged, 0 skipped/, 'still 136 foods');
    const merged = await startTestServer(db);
    try {
      const food = await foodNamed(merged, 'Wine, white, sauvignon blanc');
      assert.equal(food.mass, 100);
      assert.equal(food.volume, 101.01, 'the millilitres that weigh 100 g');
      assert.deepEqual(food.servings, [{ name: '100 g', scale: 1, type: 'mass', isDefault: true }, { name: '100 mL', scale: 0.99, type: 'volume', isDefault: false }]);
      assert.equal(food.nutrients['energy'], 296, 'nutrients stay per 100 g');
      assert.equal(food.nutrients['alcohol'], 9.9);
    } finally {
      await merged.close();
    }
  });

  test('a text in a number column after the multi-line header: file:line, nothing changed', async () => {
    const lines = readFileSync(SOLIDS, 'utf8').split('\n');
    // Physical line 156 (the header spans 155): F002258,31302,"Cardamom seed, dried, ground",1236,1012,8.3,10.8,…
    assert.match(lines[155]!, /^F002258,31302,"Cardamom seed, dried, ground",1236,1012,8\.3,10\.8,/);
    lines[155] = lines[155]!.replace(',8.3,10.8,', ',8.3,ten,');
    const bad = join(ausnut.dir, 'bad-solids.csv');
    writeFileSync(bad, lines.join('\n'));
    const db = join(ausnut.dir, 'afcd-xlsx.db');
    const before = snapshot(db);
    const failed = await runCli(['import', 'afcd', bad, LIQUIDS, '--db', db, '--replace']);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /bad-solids\.csv:156: Public Food Key F002258: protein \(g\): not a number: 'ten'/);
    assert.equal(snapshot(db), before, 'the database changed');
    const skipped = await importInto(join(ausnut.dir, 'afcd-skip.db'), 'afcd', [bad, LIQUIDS], ['--skip-invalid']);
    assert.match(totals(skipped.stdout), /imported: 315 added, 0 changed, 0 unchanged, 1 skipped/);
  });

  test('the same food twice is refused, naming both places (the workbook by sheet and row)', async () => {
    const failed = await runCli(['import', 'afcd', XLSX, SOLIDS, '--db', join(ausnut.dir, 'twice.db')]);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, new RegExp(`solids-per-100g\\.trimmed\\.csv:156: Public Food Key F002258 is also in ${SOLIDS_SHEET.replace(/[.&]/g, '\\$&')} row 2`));
    const skipped = await importInto(join(ausnut.dir, 'twice.db'), 'afcd', [XLSX, SOLIDS], ['--skip-invalid']);
    assert.match(totals(skipped.stdout), /imported: 316 added, 0 changed, 0 unchanged, 104 skipped/);
  });
});
