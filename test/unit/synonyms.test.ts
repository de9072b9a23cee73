import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Synonyms, SynonymError } from '../../src/search/synonyms.js';
import { tempDir } from '../helpers/paths.js';

describe('the synonym list (Solr format)', () => {
  test('a line of terms links each to every other; => links one way; forms, case and accents do not matter', () => {
    const list = Synonyms.parse(`
      # a comment
      Aubergine, eggplant   # trailing comment
      soda, soft drink => carbonated beverage
      Hot dogs, frankfurter
    `);
    assert.deepEqual(list.of(['aubergine']), [['eggplant']]);
    assert.deepEqual(list.of(['eggplants']), [['aubergine']], 'plural of a term');
    assert.deepEqual(list.of(['soda']), [['carbonated', 'beverage']]);
    assert.deepEqual(list.of(['soft', 'drinks']), [['carbonated', 'beverage']]);
    assert.deepEqual(list.of(['carbonated', 'beverage']), [], 'one way');
    assert.deepEqual(list.of(['hot', 'dog']), [['frankfurter']]);
    assert.deepEqual(list.of(['frankfurter']), [['hot', 'dogs']]);
    assert.equal(list.longest, 2);
    // In another order, only through ofAnyOrder (the engine asks it when nothing matched as typed).
    assert.deepEqual(list.of(['dogs', 'hot']), []);
    assert.deepEqual(list.ofAnyOrder(['dogs', 'hot']), [['frankfurter']]);
    assert.deepEqual(list.ofAnyOrder(['drink', 'soft']), [['carbonated', 'beverage']]);
    assert.deepEqual(list.ofAnyOrder(['aubergine']), [], 'phrases only');
  });

  test('a phrase that repeats a word is found as the query is searched, each word once', () => {
    const list = Synonyms.parse('mahi mahi, dolphinfish\n');
    assert.deepEqual(list.of(['mahi']), [['dolphinfish']]);
    assert.deepEqual(list.of(['dolphinfish']), [['mahi', 'mahi']]);
    assert.equal(list.longest, 1);
  });

  test('errors name the file and line', () => {
    assert.throws(() => Synonyms.parse('a, b\nlonely\n', 'mine.txt'), (e: Error) => e instanceof SynonymError && /mine\.txt:2/.test(e.message));
    assert.throws(() => Synonyms.parse('a => b => c', 'x'), /x:1: more than one '=>'/);
    assert.throws(() => Synonyms.parse('a, , b', 'x'), /x:1: an empty term/);
  });

  test('files load in order; default is the list that ships', () => {
    const { dir, cleanup } = tempDir();
    try {
      const mine = join(dir, 'mine.txt');
      writeFileSync(mine, 'zyzzyva, quorblet\n');
      const both = Synonyms.load(['default', mine]);
      assert.deepEqual(both.of(['zyzzyva']), [['quorblet']]);
      assert.ok(both.of(['aubergine']).length > 0);
      assert.ok(Synonyms.load([mine]).of(['aubergine']).length === 0, 'a list without default replaces it');
      assert.ok(Synonyms.load(['default']).size > 200, 'the shipped list has a couple of hundred entries');
      assert.throws(() => Synonyms.load([join(dir, 'missing.txt')]), /cannot read the synonym file/);
    } finally {
      cleanup();
    }
  });
});
