import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCsv, CsvSyntaxError } from '../../src/importers/csv-rows.js';
import {
  AFCD_LAYOUT, AUSNUT_LAYOUT, MissingColumn, mapColumns, normaliseHeader, readQuantities, splitHeader, unitFactor,
} from '../../src/importers/fsanz/columns.js';
import { CategoryTree, categoryPath } from '../../src/importers/fsanz/categories.js';
import { basisOf, classificationOf, density, nutrientsOf, parseAmount } from '../../src/importers/fsanz/mapping.js';
import { readRow } from '../../src/importers/fsanz/rows.js';
import type { CatalogRecord } from '../../src/domain/records.js';
import { fixturePath, tempDir } from '../helpers/paths.js';

async function header(file: string): Promise<string[]> {
  for await (const record of readCsv(fixturePath(`au-fsanz/${file}`))) return [...record.fields];
  throw new Error(`${file} is empty`);
}

describe('FSANZ headers', () => {
  test('normalised: line breaks and runs of spaces collapse, case folds, µ (U+00B5) is μ', () => {
    assert.equal(normaliseHeader('Protein \n(g)'), 'protein (g)');
    assert.equal(normaliseHeader('  Folate, natural  (\u00b5g) '), 'folate, natural (\u03bcg)');
    assert.equal(normaliseHeader('Malic acid\r\n (g)'), 'malic acid (g)');
  });

  test('the unit is the last parenthesised part; other parentheses stay in the label', () => {
    assert.deepEqual(splitHeader('Iron (Fe) \n(mg)'), { label: 'iron (fe)', unit: 'mg' });
    assert.deepEqual(splitHeader('Retinol (preformed vitamin A) \n(ug)'), { label: 'retinol (preformed vitamin a)', unit: 'ug' });
    assert.deepEqual(splitHeader('Food ID'), { label: 'food id', unit: '' });
  });

  test('unit factors: to what we store, or none between kinds', () => {
    assert.equal(unitFactor('μg', 'mg'), 0.001);
    assert.equal(unitFactor('ug', 'µg'), 1);
    assert.equal(unitFactor('mg', 'g'), 0.001);
    assert.equal(unitFactor('g', 'mg'), 1000);
    assert.equal(unitFactor('kj', 'kJ'), 1);
    assert.equal(unitFactor('%t', 'g'), undefined);
    assert.equal(unitFactor('mg/gn', 'mg'), undefined);
  });

  test('the real AUSNUT header: columns by name, µg and mg columns converted', async () => {
    const columns = mapColumns(await header('ausnut-2011-13-food-nutrient-database.csv'), AUSNUT_LAYOUT);
    assert.deepEqual([columns.key, columns.code, columns.name, columns.flag, columns.width], [0, 1, 2, 3, 57]);
    const trans = columns.quantities.find((q) => q.quantity === 'transFat');
    assert.deepEqual(trans, { quantity: 'transFat', index: 56, factor: 0.001, header: 'total trans fatty acids (mg)' });
    const retinol = columns.quantities.find((q) => q.quantity === 'retinol');
    assert.deepEqual(retinol, { quantity: 'retinol', index: 18, factor: 1, header: 'preformed vitamin a (retinol) (μg)' });
    assert.equal(columns.quantities.length, 24, 'every quantity of the table is in AUSNUT');
  });

  test('the real AFCD solids header: the grams column, not the %T one of the same name', async () => {
    const columns = mapColumns(await header('afcd-release2-nutrient-file.solids-per-100g.trimmed.csv'), AFCD_LAYOUT);
    assert.equal(columns.width, 323);
    const sat = columns.quantities.find((q) => q.quantity === 'satFat');
    assert.equal(sat?.header, 'total saturated fatty acids, equated (g)');
    assert.equal(columns.quantities.find((q) => q.quantity === 'ala')?.factor, 1000, 'C18:3w3 (g) → mg');
    assert.equal(columns.flag, undefined);
  });

  test('a missing required column is named', async () => {
    const ausnut = await header('ausnut-2011-13-food-nutrient-database.csv');
    assert.throws(() => mapColumns(ausnut.filter((h) => h !== 'Food ID'), AUSNUT_LAYOUT), new MissingColumn("no 'Food ID' column"));
    assert.throws(() => mapColumns(ausnut.filter((h) => !h.startsWith('Energy, with')), AUSNUT_LAYOUT), /no 'Energy, with dietary fibre \(kJ\)' column/);
    assert.throws(() => mapColumns(ausnut, AFCD_LAYOUT), /no 'Public Food Key' column/);
  });
});

describe('FSANZ values', () => {
  test('amounts: empty is unknown, trace and below-LOQ are 0, anything else not a number ≥ 0 throws', () => {
    assert.equal(parseAmount(''), undefined);
    assert.equal(parseAmount('  '), undefined);
    assert.equal(parseAmount(null), undefined);
    assert.equal(parseAmount('0'), 0);
    assert.equal(parseAmount(' 13.97 '), 13.97);
    assert.equal(parseAmount(1236), 1236);
    assert.equal(parseAmount('tr'), 0);
    assert.equal(parseAmount('<0.1'), 0);
    assert.throws(() => parseAmount('abc'), /not a number: 'abc'/);
    assert.throws(() => parseAmount('1,5'), /not a number/);
    assert.throws(() => parseAmount('-1'), /not a number/);
    assert.throws(() => parseAmount(-1), /not an amount ≥ 0/);
    assert.throws(() => parseAmount(true), /not a number/);
  });

  test('vitamin A in IU from retinol and β-carotene equivalents; omega-3 from ALA and long-chain n-3', () => {
    // Chai latte (AUSNUT 01B10489): retinol 20 µg, β-carotene equivalents 8 µg, ALA 0.02 g, LC n-3 0.432 mg.
    const n = nutrientsOf({ retinol: 20, provitaminA: 8, ala: 20, lcOmega3: 0.432 });
    assert.equal(n.vitaminA, 80);
    assert.equal(n.omega3Fat, 20.432);
    assert.deepEqual(nutrientsOf({ retinol: 20, ala: 20 }), {}, 'a sum of the known parts would understate: unknown');
  });

  test('sugar alcohols from the two available-carbohydrate columns; netCarbs is available carbohydrate', () => {
    assert.deepEqual(nutrientsOf({ totalCarbs: 60.3, carbsWithoutSugarAlcohols: 55.1, fiber: 3 }),
      { totalCarbs: 60.3, fiber: 3, sugarAlcohol: 5.2, netCarbs: 60.3 });
    assert.deepEqual(nutrientsOf({ energy: 401, moisture: 56.6 }), { energy: 401 }, 'moisture is no key of ours');
  });

  test('a row: µg and mg columns in our units; bad rows say why', async () => {
    const head = await header('ausnut-2011-13-food-nutrient-database.csv');
    const columns = mapColumns(head, AUSNUT_LAYOUT);
    const cells = head.map(() => '');
    Object.assign(cells, { 0: '01B10489', 1: '11102003', 2: 'Chai latte', 4: '329', 56: '47.78' });
    const row = readRow(cells, columns, AUSNUT_LAYOUT);
    assert.ok(!('reason' in row));
    assert.deepEqual(row.amounts, { energy: 329, transFat: 0.04778 });
    assert.deepEqual(readRow(Object.assign([...cells], { 7: 'n/a' }), columns, AUSNUT_LAYOUT),
      { reason: "Food ID 01B10489: protein (g): not a number: 'n/a'" });
    assert.deepEqual(readRow(Object.assign([...cells], { 0: ' ' }), columns, AUSNUT_LAYOUT), { reason: 'no Food ID' });
    assert.deepEqual(readRow(Object.assign([...cells], { 2: '' }), columns, AUSNUT_LAYOUT), { reason: 'Food ID 01B10489: no Food Name' });
    assert.deepEqual(readRow(Object.assign([...cells], { 1: '11x' }), columns, AUSNUT_LAYOUT),
      { reason: "Food ID 01B10489: Survey ID '11x' is not a classification code (2–8 digits)" });
    assert.deepEqual(readQuantities(Object.assign([...cells], { 4: 1236 }), columns), { energy: 1236, transFat: 0.04778 }, 'xlsx numbers as they are');
  });

  test('classification: the first comma-separated part of the name', () => {
    assert.equal(classificationOf('Juice, apple, commercial'), 'Juice');
    assert.equal(classificationOf('Pakora (coated & deep fried vegetables), Indian restaurant-style'), 'Pakora (coated & deep fried vegetables)');
    assert.equal(classificationOf('Honey'), 'Honey');
  });
});

describe('FSANZ categories', () => {
  test('major (named), sub-major and minor group from the code; AUSNUT survey codes use their first 5 digits', () => {
    assert.deepEqual(categoryPath('31103001'), [
      { key: '31', name: 'Miscellaneous' }, { key: '311', name: 'Group 311' }, { key: '31103', name: 'Group 31103' },
    ]);
    assert.deepEqual(categoryPath('29202')?.map((n) => n.name), ['Alcoholic beverages', 'Group 292', 'Group 29202']);
    assert.equal(categoryPath('35101')?.[0]?.name, 'Group 35', 'a major group outside the table is named by its code');
  });

  test('a code that stops above the minor level gets a leaf of its own', () => {
    assert.deepEqual(categoryPath('132'), [
      { key: '13', name: 'Cereal based products and dishes' }, { key: '132', name: 'Group 132' },
      { key: '132-other', name: 'Group 132, not further classified' },
    ]);
    assert.equal(categoryPath('1'), undefined);
    assert.equal(categoryPath('123456789'), undefined);
    assert.equal(categoryPath('31302.0'), undefined);
  });

  test('each category once, parents first; foods only in categories without children', () => {
    const tree = new CategoryTree('au');
    const source = { file: 'x.csv', line: 1 };
    const records: CatalogRecord[] = [];
    const leaves: string[] = [];
    for (const code of ['13201', '132', '13201', '12101', '132']) {
      const gen = tree.leaf(categoryPath(code)!, source);
      for (let step = gen.next(); ; step = gen.next()) {
        if (step.done) {
          leaves.push(step.value);
          break;
        }
        records.push(step.value);
      }
    }
    const categories = records.flatMap((r) => (r.kind === 'category' ? [r.value] : []));
    assert.deepEqual(categories.map((c) => c.name),
      ['Cereal based products and dishes', 'Group 132', 'Group 13201', 'Group 132, not further classified', 'Cereals and cereal products', 'Group 121', 'Group 12101']);
    const seen = new Set<string>();
    for (const c of categories) {
      if (c.parent) assert.ok(seen.has(c.parent), `${c.name}: parent first`);
      seen.add(c.id);
    }
    const parents = new Set(categories.map((c) => c.parent));
    for (const leaf of leaves) assert.ok(!parents.has(leaf), 'a food category has no children');
    assert.equal(leaves[0], leaves[2]);
  });
});

describe('FSANZ liquids', () => {
  test('density from the largest shared amount; a food in both sheets is per 100 g with a 100 mL serving', () => {
    const g = { energy: 367, moisture: 80.1, protein: 3.6 };
    const ml = { energy: 382, moisture: 83.4, protein: 3.7 };
    assert.equal(density(g, ml), 1.040872);
    assert.deepEqual(basisOf(g, ml), {
      amounts: g, mass: 100, volume: 96.073,
      servings: [{ name: '100 g', scale: 1, type: 'mass' }, { name: '100 mL', scale: 1.041, type: 'volume' }],
    });
  });

  test('per 100 mL alone; rows that cannot be related give no basis', () => {
    assert.deepEqual(basisOf(undefined, { energy: 8 }), { amounts: { energy: 8 }, volume: 100, servings: [{ name: '100 mL', scale: 1, type: 'volume' }] });
    assert.equal(density({ energy: 0, fat: 0 }, { energy: 0, fat: 0 }), undefined);
    assert.equal(basisOf({ energy: 0 }, { protein: 1 }), undefined);
  });
});

describe('CSV records', () => {
  test('each record carries the line it starts on, across in-cell line breaks (LF, as Excel writes them) and a BOM', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const file = join(dir, 'x.csv');
      writeFileSync(file, '\ufeffa,"b\nc",d\r\n1,2,3\r\n4,5\r\n');
      const records = [];
      for await (const r of readCsv(file)) records.push(r);
      assert.deepEqual(records, [{ line: 1, fields: ['a', 'b\nc', 'd'] }, { line: 3, fields: ['1', '2', '3'] }, { line: 4, fields: ['4', '5'] }]);
      writeFileSync(file, 'a,b\r\n1,"2\r\n');
      await assert.rejects(async () => {
        for await (const _ of readCsv(file)) { /* read to the end */ }
      }, (error: Error) => error instanceof CsvSyntaxError && /^x\.csv:\d+: not valid CSV: Quote Not Closed/.test(error.message));
    } finally {
      cleanup();
    }
  });
});
