import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PLACEMENT, foldedWords, foodWords } from '../../src/search/food-text.js';

const WORD = /[\p{L}\p{N}]+/gu;

// ASCII punctuation and digits beside letters whose classes only the Unicode expression knows:
// accented and other scripts' letters, other numbers (², ½), marks, and a surrogate pair.
const character = fc.constantFrom('a', 'Z', '0', '9', ' ', ',', '-', "'", '_', '*', 'é', 'ß', '\u00b2', '\u00bd', '\u0301', '\u4e2d', '\u{1f34e}', '\u{1d400}');

test('foldedWords splits any text as the Unicode letters-and-digits expression does', () => {
  fc.assert(fc.property(fc.array(character, { maxLength: 40 }).map((cs) => cs.join('')), (text) => {
    assert.deepEqual(foldedWords(text), text.match(WORD) ?? [], JSON.stringify(text));
  }), { numRuns: 2000 });
});

test('foldedWords keeps ASCII words whole, at the start and end of a text too', () => {
  assert.deepEqual(foldedWords('apples, raw (with skin)'), ['apples', 'raw', 'with', 'skin']);
  assert.deepEqual(foldedWords('7up'), ['7up']);
  assert.deepEqual(foldedWords(''), []);
  assert.deepEqual(foldedWords(' , '), []);
});

// Two-letter words from a small set, so that foods repeat words within and across fields, and
// some have more distinct words than foodWords scans before it keeps a map.
const word = fc.constantFrom(...Array.from({ length: 60 }, (_, i) => `w${String.fromCharCode(97 + (i % 26))}${Math.floor(i / 26)}`));
const words = (min: number, max: number) => fc.array(word, { minLength: min, maxLength: max, size: 'max' });

test('foodWords gives each distinct word once, in order of first appearance, with its best placement', () => {
  fc.assert(fc.property(fc.array(words(1, 6), { minLength: 1, maxLength: 5 }), words(1, 8), words(0, 80), (segments, classification, description) => {
    const name = segments.map((s) => s.join(' ')).join(', ');
    const found = foodWords({ name, brand: '', classification: classification.join(' '), otherNames: '', description: description.join(' ') });
    // What each occurrence would be placed at, in the order foodWords reads the fields.
    const occurrences: [string, number][] = [];
    segments.forEach((s, index) => s.forEach((w, i) => occurrences.push([w,
      index === 0 ? (i === 0 ? PLACEMENT.head : PLACEMENT.headSegment) : index === 1 ? PLACEMENT.secondSegment : PLACEMENT.laterSegment])));
    for (const w of classification) occurrences.push([w, PLACEMENT.classification]);
    for (const w of description) occurrences.push([w, PLACEMENT.description]);
    const best = new Map<string, number>();
    for (const [w, placement] of occurrences) best.set(w, Math.min(best.get(w) ?? Infinity, placement));
    assert.deepEqual(found.words.map((w) => [w.word, w.placement]), [...best]);
  }), { numRuns: 500 });
});
