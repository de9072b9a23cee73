import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryBlobs } from '../../src/search/blobs.js';
import { buildSearchData, type SearchFoodRow } from '../../src/search/build.js';
import { planQuery, prefixAlternatives } from '../../src/search/plan.js';
import { SearchIndex } from '../../src/search/search-index.js';
import { Synonyms } from '../../src/search/synonyms.js';
import type { Vocabulary } from '../../src/search/vocabulary.js';

const FOODS: SearchFoodRow[] = ['cheese, cheddar', 'chips, potato', 'cherries, raw', 'soup, onion'].map((name, rid) => ({
  rid, name, classification: '', otherNames: '', description: rid === 3 ? 'with chives' : '', region: 'us', brand: 0, category: 0, servings: 1,
}));

function vocabulary(): Vocabulary {
  const blobs = new MemoryBlobs();
  buildSearchData({
    ridLimit: FOODS.length,
    foods: () => FOODS,
    nameOrder: () => FOODS.map((f) => f.rid).sort((a, b) => (FOODS[a]!.name < FOODS[b]!.name ? -1 : 1)),
    brands: () => [{ rid: 0, name: 'average all brands', generic: true }],
    tagFoods: () => [],
  }, blobs);
  return SearchIndex.load(blobs)!.vocabulary;
}

const words = (...texts: string[]): { text: string; prefix: boolean }[] => texts.map((t) => ({ text: t.replace('*', ''), prefix: t.endsWith('*') }));

test('a type-ahead word\'s slot is the same planned again (kept per prefix), alone or not, names only or not', () => {
  const v = vocabulary();
  const prefixSlot = (query: readonly string[], nameOnly = false) => {
    const plan = planQuery(words(...query), v, Synonyms.none, { nameOnly });
    return plan.slots.find((s) => s.alternatives.some((a) => a.terms.some((t) => t.choices.length > 1)))!;
  };
  const partials = (slot: ReturnType<typeof prefixSlot>): number => slot.alternatives[0]!.terms[0]!.choices.filter((c) => c.partial === true).length;
  // In either order, and asked twice: each form of the plan keeps its own choices.
  for (let round = 0; round < 2; round++) {
    const alone = prefixSlot(['ch*']);
    const beside = prefixSlot(['soup', 'ch*']);
    const names = prefixSlot(['cheese', 'ch*'], true);
    assert.deepEqual(alone.alternatives, prefixAlternatives('ch', v, false, true));
    assert.deepEqual(beside.alternatives, prefixAlternatives('ch', v, false, false));
    assert.deepEqual(names.alternatives, prefixAlternatives('ch', v, true, false));
    // cheddar, cheese, cherries, chips, chives: every one a partial completion when alone, none beside a word.
    assert.equal(partials(alone), 5);
    assert.equal(partials(beside), 0);
    // Names only: chives is in a description.
    assert.equal(names.alternatives[0]!.terms[0]!.choices.length, 4);
    assert.notEqual(alone.key, beside.key);
  }
});
