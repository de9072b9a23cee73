import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BASE_COVERS, BASE_PARTS, type GroupPostings, type SlotPostings } from '../../src/search/postings.js';
import { ALL_FORMS, materialize, type Alternative, type Slot } from '../../src/search/slots.js';
import { slotEntryByRules, type SlotEntry } from '../helpers/slot-rules.js';

const FOODS = 48;
/** Kinds the generated postings use (a few placements, in and out of the name). */
const CODES = [1, 3, 9, 16, 28, 33];

/** A slot's list as text: each food with its name bit, value and coverage, in rid order. */
function entries(list: SlotPostings): string[] {
  return Array.from(list.rids, (rid, i) => {
    const code = list.codes[i]!;
    return `${rid}:${code & 1}:${-list.parts[code >>> 1]!}:${list.covers[code >>> 1]!}`;
  });
}

/** The slot's entry for one food, read straight off the rules (no list made). */
function reference(slot: Slot, groups: readonly GroupPostings[], rid: number): SlotEntry | undefined {
  return slotEntryByRules(slot, (choice) => {
    const p = groups[choice.group]!;
    const at = p.rids.indexOf(rid);
    if (at < 0) return undefined;
    const code = p.codes[at]!;
    return { named: code & 1, value: -BASE_PARTS[code >>> 1]! + choice.offset, cover: BASE_COVERS[code >>> 1]! };
  });
}

const postings = fc.uniqueArray(fc.integer({ min: 0, max: FOODS - 1 }), { maxLength: FOODS }).chain((unsorted) =>
  fc.array(fc.constantFrom(...CODES), { minLength: unsorted.length, maxLength: unsorted.length }).map((codes): GroupPostings => ({
    rids: Uint32Array.from([...unsorted].sort((a, b) => a - b)), codes: Uint8Array.from(codes), parts: BASE_PARTS, covers: BASE_COVERS, forms: undefined,
  })));

const alternative = (groups: number): fc.Arbitrary<Alternative> => fc.record({
  terms: fc.array(fc.record({
    choices: fc.array(fc.record({ group: fc.integer({ min: 0, max: groups - 1 }), forms: fc.constant(ALL_FORMS), offset: fc.integer({ min: -20, max: 20 }) }), { minLength: 1, maxLength: 3 }),
  }), { minLength: 1, maxLength: 3 }),
  // Large offsets and word counts put some values past ±2,048, where kinds are found another way.
  offset: fc.oneof(fc.constant(0), fc.integer({ min: -5, max: 1200 })),
  words: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 40 })),
});

test('a made slot list gives every food the entry the matching rules give it: word forms, synonyms, phrases, offsets', () => {
  fc.assert(fc.property(
    fc.array(postings, { minLength: 1, maxLength: 5 }).chain((groups) =>
      fc.tuple(fc.constant(groups), fc.array(alternative(groups.length), { minLength: 1, maxLength: 4 }))),
    ([groups, alternatives]) => {
      const slot: Slot = { key: 'slot', alternatives };
      const made = materialize(slot, (g) => groups[g]);
      const expected: string[] = [];
      for (let rid = 0; rid < FOODS; rid++) {
        const e = reference(slot, groups, rid);
        if (e !== undefined) expected.push(`${rid}:${e.named}:${e.value}:${e.cover}`);
      }
      assert.deepEqual(entries(made), expected);
      // Within some foods, the same entries for those foods only.
      const within = Uint32Array.from({ length: FOODS / 2 }, (_, i) => 2 * i);
      assert.deepEqual(entries(materialize(slot, (g) => groups[g], within)), expected.filter((e) => Number(e.split(':')[0]) % 2 === 0));
    },
  ), { numRuns: 400 });
});
