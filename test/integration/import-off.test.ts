import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importInto, runCli } from '../helpers/cli.js';
import { fixturePath, tempDir } from '../helpers/paths.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const CSV = fixturePath('off/products.csv');
const JSONL = fixturePath('off/products-dump-1-record.jsonl');

let dir: string;
let cleanup: () => void;
let server: TestServer;
let summary: { stdout: string; stderr: string };

before(async () => {
  ({ dir, cleanup } = tempDir());
  summary = await importInto(join(dir, 'off.db'), 'off', [CSV, JSONL]);
  server = await startTestServer(join(dir, 'off.db'));
});

after(async () => {
  await server.close();
  cleanup();
});

interface ApiFood {
  name: string; region: string; brand: { name: string }; classification: string; tags: { name: string }[];
  category: { hierarchy: { name: string }[]; isLeaf: boolean };
  servings: { name: string; scale: number; type: string }[]; upcs: Record<string, { servingIndex: number; quantity: number }>;
  nutrients: Record<string, number>;
}

async function byBarcode(code: string, region: 'au' | 'us'): Promise<ApiFood> {
  const res = await server.get(`/v1/foods?region=${region}&limit=100`);
  const food = (res.body as { foods: ApiFood[] }).foods.find((f) => code in f.upcs);
  assert.ok(food, `no ${region} food with barcode ${code}`);
  return food;
}

describe('import off: the real Open Food Facts samples', () => {
  test('products sold in au or us become foods; the others are skipped with a reason, not failed', () => {
    assert.match(summary.stdout, /imported \d+ foods: \d+ added, 0 changed, 0 unchanged, 4 skipped;/);
    assert.match(summary.stderr, /skipped products\.csv:2: product 0000101209159 is not sold in Australia or the United States \(en:france\)/);
    assert.match(summary.stderr, /skipped products-dump-1-record\.jsonl:1: product 0000000000 is not sold in Australia or the United States \(en:germany,en:italy\)/);
  });

  test('57 US foods and 1 Australian food', async () => {
    const total = async (q: string): Promise<number> => ((await server.get(`/v1/foods?${q}&limit=1`)).body as { metadata: { total: number } }).metadata.total;
    assert.equal(await total('region=us'), 57);
    assert.equal(await total('region=au'), 1);
  });

  test('Trader Joe\'s peanut butter, value by value against its CSV row', async () => {
    // Row 00014885: energy-kj_100g 2721.875, fat 50, saturated-fat 7.8125, trans-fat 0, cholesterol 0 g,
    // carbohydrates 21.875, sugars 6.25, fiber 9.375, proteins 25, sodium 0.4375 g, potassium 0.698804575 g,
    // iron 0.0015977075 g, serving_size "2 tbsp. (32 g)", serving_quantity 32, labels en:kosher,en:orthodox-union-kosher.
    const food = await byBarcode('00014885', 'us');
    assert.equal(food.name, 'Crunchy Peanut Butter from unblanched peanuts salted');
    assert.equal(food.brand.name, "Trader Joe's");
    assert.equal(food.nutrients['energy'], 2721.875);
    assert.equal(food.nutrients['fat'], 50);
    assert.equal(food.nutrients['satFat'], 7.8125);
    assert.equal(food.nutrients['sodium'], 437.5);
    assert.equal(food.nutrients['potassium'], 698.804575);
    assert.equal(food.nutrients['iron'], 1.597708);
    assert.equal(food.nutrients['netCarbs'], 12.5);
    assert.equal('vitaminA' in food.nutrients, false, 'retinol equivalents have no exact IU value');
    assert.equal('alcohol' in food.nutrients, false, "OFF's alcohol is % vol");
    assert.deepEqual(food.servings, [{ name: '100 g', scale: 1, type: 'mass', isDefault: true }, { name: '2 tbsp. (32 g)', scale: 0.32, type: 'mass', isDefault: false }]);
    assert.deepEqual(food.upcs, { '00014885': { servingIndex: 1, quantity: 1 } });
    assert.deepEqual(food.tags.map((t) => t.name), ['Kosher', 'Orthodox union kosher']);
    assert.deepEqual(food.category.hierarchy.map((h) => h.name),
      ['Plant based foods and beverages', 'Plant based foods', 'Legumes and their products', 'Spreads', 'Spreads']);
    assert.equal(food.category.isLeaf, true);
    assert.equal(food.classification, 'Spreads');
  });

  test('the Australian product: region au, its brand, a serving from serving_quantity', async () => {
    const food = await byBarcode('0009542009984', 'au');
    assert.equal(food.name, 'SUPREME DARK 90% COCOA');
    assert.equal(food.brand.name, 'Lindt Excellence');
    assert.deepEqual(food.servings[1], { name: '1 serving (20 g)', scale: 0.2, type: 'mass', isDefault: false });
    assert.deepEqual(food.nutrients, {}, 'the row has no nutrient values: none are invented');
  });

  test('products without categories land in an Uncategorized leaf', async () => {
    const res = await server.get('/v1/categories?query=uncategorized&fields=name,isLeaf');
    assert.deepEqual((res.body as { categories: unknown[] }).categories, [{ name: 'Uncategorized', isLeaf: true }]);
  });

  test('re-importing changes nothing', async () => {
    const copy = join(dir, 'again.db');
    await importInto(copy, 'off', [CSV]);
    const again = await importInto(copy, 'off', [CSV]);
    assert.match(again.stdout, /imported \d+ foods: 0 added, 0 changed, \d+ unchanged, 3 skipped; brands, categories and tags: 0 added, 0 changed, \d+ unchanged;/);
  });

  test('a malformed row is reported with file and line; --skip-invalid imports the rest', async () => {
    const lines = readFileSync(CSV, 'utf8').split('\n');
    lines.splice(5, 0, 'broken\trow');
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, lines.join('\n'));
    const failed = await runCli(['import', 'off', bad, '--db', join(dir, 'bad.db')]);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /bad\.csv:6: expected 210 tab-separated fields, found 2/);
    const skipped = await runCli(['import', 'off', bad, '--db', join(dir, 'bad.db'), '--skip-invalid']);
    assert.equal(skipped.code, 0, skipped.stderr);
    assert.match(skipped.stdout, /4 skipped/);
  });

  test('netCarbs follow the label: Australian-only products print available carbohydrate', async () => {
    // The real Australian sample has no nutrient values, so these two products are made up for the rule.
    const product = (code: string, countries: string[]): string => JSON.stringify({
      code, product_name: `Label test ${code}`, countries_tags: countries, nutriments: { carbohydrates_100g: 30, fiber_100g: 5 },
    });
    const file = join(dir, 'labels.jsonl');
    writeFileSync(file, [product('12345670', ['en:australia']), product('12345687', ['en:australia', 'en:united-states'])].join('\n'));
    const db = join(dir, 'labels.db');
    await importInto(db, 'off', [file]);
    const labels = await startTestServer(db);
    try {
      const carbs = async (region: string, code: string): Promise<number | undefined> => {
        const foods = ((await labels.get(`/v1/foods?region=${region}&limit=10`)).body as { foods: ApiFood[] }).foods;
        return foods.find((f) => code in f.upcs)?.nutrients['netCarbs'];
      };
      assert.equal(await carbs('au', '12345670'), 30);
      assert.equal(await carbs('au', '12345687'), 25);
      assert.equal(await carbs('us', '12345687'), 25);
    } finally {
      await labels.close();
    }
  });
});
