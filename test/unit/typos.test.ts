import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DELETIONS_MAX_LETTERS, buildDeletionIndex, corrections, editDistance, editsAllowed } from '../../src/search/typos.js';
import { seededRandom } from '../../bench/random.js';

describe('typo tolerance (contract C3: optimal string alignment, 1 edit from 5 letters, 2 from 9)', () => {
  test('an edit inserts, deletes, substitutes or swaps two adjacent letters', () => {
    assert.equal(editDistance('brocoli', 'broccoli', 2), 1);
    assert.equal(editDistance('chiken', 'chicken', 2), 1);
    assert.equal(editDistance('cheeze', 'cheese', 2), 1);
    assert.equal(editDistance('yoghurt', 'yogurt', 2), 1);
    assert.equal(editDistance('cehese', 'cheese', 2), 1, 'an adjacent swap is one edit');
    assert.equal(editDistance('cinammon', 'cinnamon', 2), 2);
    assert.equal(editDistance('parmesean', 'parmesan', 2), 1);
    assert.equal(editDistance('abc', 'abc', 2), 0);
    assert.equal(editDistance('abcdef', 'ghijkl', 2), 3, 'capped at max + 1');
  });

  test('which words may be corrected', () => {
    assert.equal(editsAllowed('mozarella'), 2);
    assert.equal(editsAllowed('brocoli'), 1);
    assert.equal(editsAllowed('chese'), 1);
    assert.equal(editsAllowed('chee'), 0, 'fewer than 5 letters');
    assert.equal(editsAllowed('12345'), 0, 'numbers');
    assert.equal(editsAllowed('7uppp'), 0, 'words with a digit');
  });

  test('the deletion index finds exactly the words within the allowed edits (against a scan of every word)', () => {
    const random = seededRandom(11);
    const letters = 'abcdeilmnorst';
    const word = (n: number): string => Array.from({ length: n }, () => letters[Math.floor(random() * letters.length)]).join('');
    // Words past DELETIONS_MAX_LETTERS are corrected from the words of about their length, not their deletions.
    const long = (): number => DELETIONS_MAX_LETTERS - 3 + Math.floor(random() * 8);
    const vocabulary = [...new Set(Array.from({ length: 3000 }, (_, i) => word(i % 10 === 0 ? long() : 3 + Math.floor(random() * 9))))].sort();
    const index = buildDeletionIndex(vocabulary);
    const mutate = (w: string): string => {
      const chars = [...w];
      const edits = 1 + Math.floor(random() * 3);
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(random() * chars.length);
        const kind = Math.floor(random() * 4);
        if (kind === 0) chars.splice(at, 1);
        else if (kind === 1) chars.splice(at, 0, letters[Math.floor(random() * letters.length)]!);
        else if (kind === 2) chars[at] = letters[Math.floor(random() * letters.length)]!;
        else if (at + 1 < chars.length) [chars[at], chars[at + 1]] = [chars[at + 1]!, chars[at]!];
      }
      return chars.join('');
    };
    const longWords = vocabulary.filter((w) => w.length >= DELETIONS_MAX_LETTERS);
    let found = 0;
    let foundLong = 0;
    for (let i = 0; i < 400; i++) {
      const typed = i % 4 === 0 ? mutate(longWords[Math.floor(random() * longWords.length)]!)
        : i % 2 === 0 ? mutate(vocabulary[Math.floor(random() * vocabulary.length)]!) : word(i % 5 === 1 ? long() : 5 + Math.floor(random() * 8));
      const max = editsAllowed(typed);
      const expected = vocabulary.map((w, n) => ({ word: n, distance: editDistance(typed, w, max) }))
        .filter((c) => max > 0 && c.distance <= max && c.distance > 0)
        .sort((a, b) => a.distance - b.distance || a.word - b.word);
      assert.deepEqual(corrections(typed, index, vocabulary), expected, typed);
      found += expected.length;
      if (typed.length > DELETIONS_MAX_LETTERS) foundLong += expected.length;
    }
    assert.ok(found > 50, `${found} corrections compared`);
    assert.ok(foundLong > 40, `${foundLong} corrections of words past ${DELETIONS_MAX_LETTERS} letters compared`);
  });
});
