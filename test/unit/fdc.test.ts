import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  barcode, labelServing, marketRegion, normaliseNumber, nutrientsOf, portionName, unitFactor,
} from '../../src/importers/fdc/mapping.js';
import { CsvSyntaxError, readCsv, type CsvRow } from '../../src/importers/csv-rows.js';
import { tempDir } from '../helpers/paths.js';

describe('fdc mapping rules', () => {
  test('nutrient numbers compare equal however a release prints them', () => {
    assert.equal(normaliseNumber('208.0'), '208');
    assert.equal(normaliseNumber(' 269.3 '), '269.3');
    assert.equal(normaliseNumber('208'), '208');
  });

  test('units convert to each key\'s unit; incommensurable ones are refused', () => {
    assert.equal(unitFactor('KCAL', 'energy'), 4.184);
    assert.equal(unitFactor('kJ', 'energy'), 1);
    assert.equal(unitFactor('UG', 'calcium'), 0.001);
    assert.equal(unitFactor('G', 'sodium'), 1000);
    assert.equal(unitFactor('MG', 'fat'), 0.001);
    assert.equal(unitFactor('UG', 'vitaminA'), undefined); // RAE µg is not IU
    assert.equal(unitFactor('IU', 'vitaminA'), 1);
  });

  test('the best-ranked number wins: 208 kcal before 268 kJ before Atwater 958 and 957', () => {
    const v = (nbr: string, unit: string, amount: number) => ({ nbr, unit, amount });
    assert.deepEqual(nutrientsOf([v('957', 'KCAL', 243), v('268', 'kJ', 960), v('208', 'KCAL', 229)]), { energy: 958.136 });
    assert.deepEqual(nutrientsOf([v('957', 'KCAL', 243), v('268', 'kJ', 960)]), { energy: 960 });
    assert.deepEqual(nutrientsOf([v('957', 'KCAL', 243), v('958', 'KCAL', 229)]), { energy: 958.136 });
    assert.deepEqual(nutrientsOf([v('269.3', 'G', 1), v('269', 'G', 2)]), { sugar: 2 });
    assert.deepEqual(nutrientsOf([v('205.2', 'G', 13.9), v('291', 'G', 5.4)]), { totalCarbs: 13.9, fiber: 5.4, netCarbs: 8.5 });
  });

  test('omega-3 sums ALA, EPA, DPA and DHA in grams, as milligrams', () => {
    const v = (nbr: string, amount: number) => ({ nbr, unit: 'G', amount });
    assert.deepEqual(nutrientsOf([v('851', 0.125), v('629', 0.009), v('631', 0.018), v('621', 0)]), { omega3Fat: 152 });
  });

  test('portion names for Foundation, SR Legacy and FNDDS rows', () => {
    const row = { amount: 1, unit: 'cup', description: '', modifier: 'cubes', grams: 160 };
    assert.equal(portionName(row), '1 cup, cubes');
    assert.equal(portionName({ ...row, unit: 'undetermined', modifier: 'cup, chopped', amount: 0.5 }), '0.5 cup, chopped');
    assert.equal(portionName({ ...row, description: '1 medium slice' }), '1 medium slice');
    assert.equal(portionName({ ...row, description: 'Quantity not specified', unit: '', modifier: '' }), '1 portion');
  });

  test('label servings: g and ml, GDSN\'s GRM and MLT; a printed weight is not repeated', () => {
    assert.deepEqual(labelServing(42, 'g', '1 Pouch'), { name: '1 Pouch (42 g)', scale: 0.42, type: 'mass' });
    assert.deepEqual(labelServing(360, 'MLT', ''), { name: '360 mL', scale: 3.6, type: 'volume' });
    assert.deepEqual(labelServing(369, 'GRM', '1 Meal (369g)'), { name: '1 Meal (369g)', scale: 3.69, type: 'mass' });
    assert.equal(labelServing(2, 'oz', ''), undefined);
    assert.equal(labelServing(undefined, 'g', '1 cup'), undefined);
  });

  test('regions from market_country; barcodes kept as written', () => {
    assert.equal(marketRegion('United States'), 'us');
    assert.equal(marketRegion(''), 'us');
    assert.equal(marketRegion('Australia'), 'au');
    assert.equal(marketRegion('New Zealand'), undefined);
    assert.equal(barcode('00024100122615'), '00024100122615');
    assert.equal(barcode('12-34'), undefined);
  });
});

describe('readCsv', () => {
  const { dir, cleanup } = tempDir();
  after(cleanup);
  const rows = async (name: string, content: string | Buffer): Promise<CsvRow[]> => {
    const path = join(dir, name);
    writeFileSync(path, content);
    const out: CsvRow[] = [];
    for await (const row of readCsv(path)) out.push(row);
    return out;
  };

  test('both quoting styles, a BOM, CRLF, embedded newlines: each record with the line it starts on', async () => {
    const quoted = await rows('a.csv', '\ufeff"id","name"\r\n"1","two\r\nlines"\r\n\r\n"3","x ""y"""\r\n');
    assert.deepEqual(quoted, [
      { fields: ['id', 'name'], line: 1 }, { fields: ['1', 'two\r\nlines'], line: 2 }, { fields: ['3', 'x "y"'], line: 5 },
    ]);
    const bare = await rows('b.csv', 'id,name\n1,"a, b"\n2,85.0');
    assert.deepEqual(bare.map((r) => r.fields), [['id', 'name'], ['1', 'a, b'], ['2', '85.0']]);
  });

  test('gzip input, and rows of any width passed on for the caller to judge', async () => {
    const got = await rows('c.csv.gz', gzipSync('a,b\n1\n1,2,3\n'));
    assert.deepEqual(got.map((r) => r.fields.length), [2, 1, 3]);
  });

  test('broken quoting is a CsvSyntaxError naming the file and the line', async () => {
    await assert.rejects(rows('d.csv', 'a,b\n1,2\n3,"x"y\n'), (error: unknown) => {
      assert.ok(error instanceof CsvSyntaxError);
      assert.match(error.message, /^d\.csv:3: not valid CSV/);
      return true;
    });
  });
});
