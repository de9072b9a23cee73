import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FormGroups, singular } from '../../src/search/word-forms.js';
import { Vocabulary } from '../../src/search/vocabulary.js';

/** A vocabulary of `words` grouped as the importer groups them (build.ts). */
function vocabulary(words: string[]): Vocabulary {
  const sorted = [...new Set(words)].sort();
  const { groupOf, keys } = FormGroups.group(sorted);
  const keyList = keys.flatMap((list, g) => list.map((key): [string, number] => [key, g])).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const none = new Uint32Array(0);
  const counts = new Uint32Array(keys.length).fill(1);
  return new Vocabulary(sorted, groupOf, new Uint8Array(sorted.length), new Uint8Array(sorted.length), keyList.map(([k]) => k),
    Uint32Array.from(keyList, ([, g]) => g), counts, counts, { hashes: none, words: none });
}

describe('word forms (contract C3: the same English singular form)', () => {
  test('regular and irregular food plurals share their singular', () => {
    for (const [plural, one] of [['apples', 'apple'], ['berries', 'berry'], ['tomatoes', 'tomato'], ['peaches', 'peach'], ['loaves', 'loaf'],
      ['leaves', 'leaf'], ['potatoes', 'potato'], ['olives', 'olive'], ['cherries', 'cherry'], ['knives', 'knife'], ['anchovies', 'anchovy']]) {
      assert.equal(singular(plural!), singular(one!), `${plural} / ${one}`);
    }
  });

  test('words that only look plural stay themselves, and no other stemming happens', () => {
    for (const word of ['glass', 'hummus', 'asparagus', 'couscous', 'swiss', 'molasses', 'cooked', 'fish', 'rice']) {
      assert.equal(singular(`${word}`), singular(singular(word)), word);
    }
    assert.notEqual(singular('cooked'), singular('cook'));
    assert.notEqual(singular('appl'), singular('apple'));
    assert.equal(singular('2'), '2');
    assert.equal(singular('us'), 'us', 'short words are their own form');
  });

  test('the vocabulary settles plurals the rules cannot (brownies, cookies, quiches)', () => {
    const v = vocabulary(['brownies', 'cookie', 'quiche', 'quiches', 'apples', 'apple', 'leaves', 'cook', 'cooked', 'glass', 'glasses', 'hummus']);
    const same = (a: string, b: string): boolean => v.groupsOf(a).join() === v.groupsOf(b).join() && v.groupsOf(a).length === 1;
    assert.ok(same('brownie', 'brownies'));
    assert.ok(same('cookies', 'cookie'));
    assert.ok(same('quiche', 'quiches'));
    assert.ok(same('apple', 'apples'));
    assert.ok(same('leaf', 'leaves'), 'a query word finds the plural the catalogue has');
    assert.ok(same('glass', 'glasses'));
    assert.ok(!same('cook', 'cooked'));
    assert.deepEqual(v.groupsOf('appl'), [], 'no stemming beyond word forms');
    assert.equal(v.groupsOf('hummus').length, 1);
  });

  test('type-ahead prefixes are a range of the sorted vocabulary', () => {
    const v = vocabulary(['cheddar', 'cheese', 'cheeses', 'chicken', 'chick', 'ch', 'dill']);
    const [from, to] = v.prefixRange('che');
    assert.deepEqual(v.words.slice(from, to), ['cheddar', 'cheese', 'cheeses']);
    assert.deepEqual(v.prefixRange('x'), [v.words.length, v.words.length]);
  });
});
