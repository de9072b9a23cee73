import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importInto, runCli } from '../helpers/cli.js';
import { snapshot } from '../helpers/db-snapshot.js';
import { fixturePath, tempDir } from '../helpers/paths.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { GENERIC_BRAND_IDS } from '../../src/domain/regions.js';

const AUSNUT = fixturePath('au-fsanz/ausnut-2011-13-food-nutrient-database.csv');

let dir: string;
let cleanup: () => void;
let server: TestServer;
let summary: { stdout: string; stderr: string };

before(async () => {
  ({ dir, cleanup } = tempDir());
  summary = await importInto(join(dir, 'ausnut.db'), 'ausnut', [AUSNUT]);
  server = await startTestServer(join(dir, 'ausnut.db'));
});

after(async () => {
  await server.close();
  cleanup();
});

interface ApiFood {
  foodId: string; name: string; region: string; brand: { id: string; name: string }; classification: string; note?: string;
  category: { name: string; hierarchy: { name: string }[]; isLeaf: boolean };
  mass?: number; volume?: number; servings: { name: string; scale: number; type: string }[];
  nutrients: Record<string, number>;
}

/** Every food of the catalogue, in the API's (name, id) order. */
async function allFoods(from: TestServer): Promise<ApiFood[]> {
  const foods: ApiFood[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = (await from.get(`/v1/foods?limit=100&offset=${offset}`)).body as { foods: ApiFood[]; metadata: { total: number } };
    foods.push(...page.foods);
    if (foods.length >= page.metadata.total) return foods;
  }
}

async function foodNamed(from: TestServer, name: string): Promise<ApiFood> {
  const food = (await allFoods(from)).find((f) => f.name === name);
  assert.ok(food, `no food named ${name}`);
  return food;
}

describe('import ausnut: the real AUSNUT 2011-13 sample', () => {
  test('120 foods and their 181 categories (21 major, 64 sub-major, 96 minor groups); no brand record', async () => {
    assert.match(summary.stdout, /imported: 301 added, 0 changed, 0 unchanged, 0 skipped/);
    const total = async (path: string): Promise<number> => ((await server.get(path)).body as { metadata: { total: number } }).metadata.total;
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
    const food = await foodNamed(server, 'Chai latte, prepared from chai mix powder & reduced fat cows milk');
    assert.equal(food.region, 'au');
    assert.deepEqual(food.brand, { id: GENERIC_BRAND_IDS.au, name: 'Average All Brands', region: 'au' });
    assert.deepEqual(food.nutrients, {
      energy: 329, protein: 4.4, fat: 1.8, totalCarbs: 11.5, netCarbs: 11.5, sugarAlcohol: 0, sugar: 10, fiber: 0, alcohol: 0,
      vitaminA: 80, vitaminC: 0, calcium: 143, iron: 0.04, potassium: 204, sodium: 76, caffeine: 8, cholesterol: 7,
      satFat: 1.14, monoUnsatFat: 0.49, polyUnsatFat: 0.08, omega3Fat: 20.432, transFat: 0.04778,
    });
    assert.equal(food.mass, 100);
    assert.equal(food.volume, undefined);
    assert.deepEqual(food.servings, [{ name: '100 g', scale: 1, type: 'mass' }]);
    assert.deepEqual(food.category.hierarchy.map((h) => h.name), ['Non-alcoholic beverages', 'Group 111', 'Group 11102']);
    assert.equal(food.category.isLeaf, true);
    assert.equal(food.classification, 'Chai latte');
  });

  test('Pumpkin: β-carotene µg to IU, sugar alcohols from the two carbohydrate columns (line 118)', async () => {
    // 13A12250,24701028: energy 196 kJ, protein 1.5, fat 0.2, available carbohydrates 8.4 with / 7.1 without sugar
    // alcohols, fibre 3, retinol 0 µg, β-carotene equivalents 710 µg, vitamin C 10, sodium 1 mg.
    const food = await foodNamed(server, 'Pumpkin, unpeeled, fresh or frozen, boiled, microwaved or steamed, drained, with or without added fat');
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
    const n = (await foodNamed(server, 'Blue-eye trevalla, flesh, raw')).nutrients;
    assert.deepEqual([n['energy'], n['protein'], n['fat'], n['sodium'], n['cholesterol']], [371, 19, 1.3, 98, 54]);
    assert.equal(n['omega3Fat'], 270.26);
    assert.equal(n['vitaminA'], 6.666667, 'retinol 2 µg / 0.3');
  });

  test('the survey flag and the source keys are kept in the note', async () => {
    const food = (await allFoods(server)).find((f) => f.name === 'Coffee, not further defined');
    assert.ok(food);
    const detailed = (await server.get(`/v1/foods/${food.foodId}?fields=note`)).body as { food: { note: string } };
    assert.equal(detailed.food.note, 'AUSNUT 2011-13 Food ID 01B10544, Survey ID 11202040; survey flag: NNPAS and NATSINPAS non-remote only');
  });

  test('re-importing changes nothing', async () => {
    const again = await importInto(join(dir, 'ausnut.db'), 'ausnut', [AUSNUT]);
    assert.match(again.stdout, /imported: 0 added, 0 changed, 301 unchanged, 0 skipped/);
  });

  test('a text in a number column fails with file:line and changes nothing; --skip-invalid imports the rest', async () => {
    const lines = readFileSync(AUSNUT, 'utf8').split('\r\n');
    // Line 5 is Chai latte: …,329,329,81.3,4.4,1.8,… (energy ×2, moisture, protein 4.4, fat).
    assert.match(lines[4]!, /^01B10489,.*,329,329,81\.3,4\.4,1\.8,/);
    lines[4] = lines[4]!.replace(',81.3,4.4,1.8,', ',81.3,abc,1.8,');
    lines[8] = '01B30356,11301001';
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, lines.join('\r\n'));
    const db = join(dir, 'bad.db');
    await importInto(db, 'ausnut', [AUSNUT]);
    const before = snapshot(db);
    const failed = await runCli(['import', 'ausnut', bad, '--db', db, '--replace']);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /import failed, nothing was changed: bad\.csv:5: Food ID 01B10489: protein \(g\): not a number: 'abc'/);
    assert.equal(snapshot(db), before, 'the database changed');

    // Chai latte alone used Group 111 and Group 11102: 118 foods and 179 categories remain.
    const skipped = await importInto(join(dir, 'skip.db'), 'ausnut', [bad], ['--skip-invalid']);
    assert.match(skipped.stdout, /imported: 297 added, 0 changed, 0 unchanged, 2 skipped/);
    assert.match(skipped.stderr, /skipped bad\.csv:5: Food ID 01B10489: protein \(g\): not a number: 'abc'/);
    assert.match(skipped.stderr, /skipped bad\.csv:9: expected 57 fields, found 2/);
  });

  test('a file without a required column is refused, naming the column', async () => {
    const afcd = fixturePath('au-fsanz/afcd-release2-nutrient-file.solids-per-100g.trimmed.csv');
    const failed = await runCli(['import', 'ausnut', afcd, '--db', join(dir, 'wrong.db')]);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /afcd-release2-nutrient-file\.solids-per-100g\.trimmed\.csv: no 'Food ID' column; is this an AUSNUT food nutrient CSV\?/);
  });
});
