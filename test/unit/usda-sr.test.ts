import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parseSrLine, readAllRows } from '../../src/importers/usda-sr/ascii-file.js';
import { classification, finishNutrients, foodKind, servingName, tagsFor } from '../../src/importers/usda-sr/mapping.js';
import { tempDir } from '../helpers/paths.js';

describe('SR ASCII layout', () => {
  test('caret separators, tilde-quoted text, empty fields kept as empty', () => {
    assert.deepEqual(parseSrLine('~01009~^~0100~^~Cheese, cheddar~^^0^~~'), ['01009', '0100', 'Cheese, cheddar', '', '0', '']);
  });

  test('a caret inside tildes is still a separator, as in the official files (text never holds one)', () => {
    assert.equal(parseSrLine('~a~^~b~').length, 2);
  });

  test('CRLF line ends, Latin-1 bytes and gzip', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const bytes = Buffer.concat([Buffer.from('~313~^~'), Buffer.from([0xb5]), Buffer.from('g~^~FLD~\r\n~01~^~x~\r\n')]);
      writeFileSync(join(dir, 'NUTR_DEF.txt'), bytes);
      writeFileSync(join(dir, 'NUTR_DEF.txt.gz'), gzipSync(bytes));
      for (const name of ['NUTR_DEF.txt', 'NUTR_DEF.txt.gz']) {
        const rows = await readAllRows(join(dir, name));
        assert.deepEqual(rows.map((r) => [r.line, r.fields]), [[1, ['313', 'µg', 'FLD']], [2, ['01', 'x']]]);
      }
    } finally {
      cleanup();
    }
  });
});

describe('SR mapping rules', () => {
  test('the kind is the first part of the description', () => {
    assert.equal(foodKind('Cheese, cheddar'), 'Cheese');
    assert.equal(foodKind('Lard'), 'Lard');
  });

  test('classification: the first two generic parts; brand parts (capitals) are passed over', () => {
    assert.equal(classification('Cheese, cheddar'), 'Cheese, cheddar');
    assert.equal(classification('Cereals ready-to-eat, KELLOGG, KELLOGG\'S ALL-BRAN Original'), 'Cereals ready-to-eat');
    assert.equal(classification('Alcoholic beverage, beer, regular, BUDWEISER'), 'Alcoholic beverage, beer');
    assert.equal(classification('WORTHINGTON Chic-Ketts, frozen, unprepared'), 'WORTHINGTON Chic-Ketts');
    assert.equal(classification('Lard'), 'Lard');
  });

  test('tags by word rules and group', () => {
    assert.deepEqual(tagsFor('Beans, adzuki, mature seeds, cooked, boiled, without salt', '1600'), ['Cooked', 'Unsalted']);
    assert.deepEqual(tagsFor('Milk, nonfat, fluid, unsweetened', '0100'), ['Fat free', 'Unsweetened']);
    assert.deepEqual(tagsFor('Cocoa, sweetened, dry', '1400'), ['Dried', 'Sweetened']);
    assert.deepEqual(tagsFor('Fast foods, biscuit', '2100'), ['Fast food']);
    assert.deepEqual(tagsFor('Rawhide-free chews', '0100'), []);
  });

  test('serving names write amounts naturally', () => {
    assert.equal(servingName(1, 'cup, diced'), '1 cup, diced');
    assert.equal(servingName(0.5, 'cup'), '0.5 cup');
    assert.equal(servingName(1.5, ' tbsp '), '1.5 tbsp');
  });

  test('energy from kcal, omega-3 g → mg, netCarbs clamped at 0, nothing invented', () => {
    assert.deepEqual(finishNutrients({ totalCarbs: 1, fiber: 3 }, 403, 0.101), { totalCarbs: 1, fiber: 3, energy: 1686.152, omega3Fat: 101, netCarbs: 0 });
    assert.deepEqual(finishNutrients({ fat: 2 }, undefined, undefined), { fat: 2 });
  });
});
