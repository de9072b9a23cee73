import { bytesOf, concat, readUint32, type SearchBlobWriter } from './blobs.js';
import { prefixAlternatives } from './plan.js';
import { BASE_COVERS, BASE_PARTS, PARTIAL_COVERS, encodeSlotPostings, type GroupPostings } from './postings.js';
import { KINDS, MAX_COVERAGE_BONUS, staticScore } from './ranking.js';
import { ALL_FORMS, choicesUnion, isCommonChoice, packEntry, unpackEntry } from './slots.js';
import { wideSlotFoods, type SearchMeta } from './search-meta.js';
import { Vocabulary } from './vocabulary.js';
import { TopFoods, finalScore, type FoodRanks } from './word-search.js';

/**
 * The first foods of the commonest one-word searches, stored by the importer: for every group
 * of forms and every type-ahead prefix (up to MAX_TOP_PREFIX letters) that at least the bound's
 * foods match, the first TOP_DEPTH foods in the full order (tier, score, name order), the number
 * of matches and of name-tier matches. `apple` or `ch*` alone at 1,000,000 foods is then two
 * blobs read instead of ranking ~10^5 matches. Each list is exactly the order the query-time
 * paths give (test/integration/ranked-search.test.ts compares them).
 */

/** Type-ahead prefixes up to this many letters get stored lists. */
export const MAX_TOP_PREFIX = 5;

export interface TopList {
  readonly matches: number;
  /** Matches in the name tier: they come first. */
  readonly named: number;
  /** The first foods, best first. */
  readonly rids: Uint32Array;
}

export function topKey(kind: 'group' | 'prefix', what: number | string): string {
  return kind === 'group' ? `top/g${what}` : `top/p${what}`;
}

/** The blob of a wide prefix's rare choices as one list (engine.ts unionParts). */
export function prefixRestKey(prefix: string): string {
  return `union/p${prefix}`;
}

/**
 * The blob of a mid-sized prefix's list (at least `topMin` foods, not wide, not one group of
 * every form): every completion's foods, as a query makes it (slots.ts `choicesUnion`). At 1,000,000
 * foods a query made such a list in ~1.3 ms (10,000–50,000 foods) from its completions'
 * postings; read, it is one blob of ~0.1 ms.
 */
export function prefixUnionKey(prefix: string): string {
  return `union/a${prefix}`;
}

export function readTopList(bytes: Uint8Array): TopList {
  const all = readUint32(bytes);
  return { matches: all[0]!, named: all[1]!, rids: all.subarray(2) };
}

function topBlob(matches: number, named: number, rids: readonly number[]): Uint8Array {
  return concat([bytesOf(Uint32Array.from([matches, named])), bytesOf(Uint32Array.from(rids))]);
}

/** Each food's static part (negated, as parts are), from its shape: the same at import and at load. */
export function staticParts(servings: Uint8Array, marks: Uint8Array): Int16Array {
  const out = new Int16Array(servings.length);
  for (let rid = 0; rid < servings.length; rid++) out[rid] = -staticScore(servings[rid]!, marks[rid]!);
  return out;
}

export interface TopListInput {
  readonly meta: SearchMeta;
  readonly place: Uint32Array;
  readonly shape: Uint32Array;
  readonly servings: Uint8Array;
  readonly marks: Uint8Array;
  readonly sorted: readonly string[];
  readonly groupOf: Uint32Array;
  readonly formOf: Uint8Array;
  readonly groupFoods: Uint32Array;
  /** Every group's postings, one after the other: group g's are `groupStart[g] … groupStart[g + 1]`. */
  readonly groupStart: Uint32Array;
  readonly rids: Uint32Array;
  readonly codes: Uint8Array;
  /** Forms of each posting (bit f: the group's form f). */
  readonly forms: Uint32Array;
}

/** Rids read at a time for a prefix's list (8 bytes each: within a processor's cache). */
const PREFIX_BLOCK = 1 << 15;
/** A stored posting's code as a packed entry (slots.ts packEntry) with no offset: an offset adds `packEntry(0, offset, 0) - packEntry(0, 0, 0)`. */
const PACKED_BASE = Float64Array.from({ length: KINDS * 2 }, (_, code) => packEntry(code & 1, -BASE_PARTS[code >>> 1]!, BASE_COVERS[code >>> 1]!));
/** The same for a partial completion (slots.ts `choiceList`). */
const PACKED_PARTIAL = Float64Array.from({ length: KINDS * 2 }, (_, code) => packEntry(code & 1, -BASE_PARTS[code >>> 1]!, PARTIAL_COVERS[code >>> 1]!));
const PACKED_ZERO = packEntry(0, 0, 0);

export interface TopListOptions {
  readonly topMin: number;
  readonly prefixUnions: boolean;
  /**
   * Lists shared with other threads: every thread goes through the groups and prefixes of at
   * least `topMin` foods in one order, and writes those whose number it draws from this counter
   * (`[0]`, shared memory), so that a thread that joins late, or runs slower, takes fewer.
   */
  readonly tickets?: Int32Array;
}

/** Writes the top lists (with `tickets`, this thread's share); returns how many groups and prefixes it took. */
export function writeTopLists(input: TopListInput, options: TopListOptions, out: SearchBlobWriter): number {
  const topMin = options.topMin;
  const tickets = options.tickets;
  let list = 0;
  let ticket = -1;
  let taken = 0;
  const mine = (): boolean => {
    if (tickets !== undefined) {
      // Lists are met in increasing order and tickets drawn in increasing order: this thread's next one is ahead.
      if (ticket < list) ticket = Atomics.add(tickets, 0, 1);
      if (ticket !== list++) return false;
    }
    taken++;
    return true;
  };
  const ranks: FoodRanks = { place: input.place, shape: input.shape, staticPart: staticParts(input.servings, input.marks) };
  const depth = input.meta.topDepth;
  // What a food's static part and coverage can at best add to its parts: foods that could not
  // enter the page even so are not scored (most of a common word's foods, once the page fills).
  let bestStatic = 0;
  for (let rid = 0; rid < ranks.staticPart.length; rid++) bestStatic = Math.min(bestStatic, ranks.staticPart[rid]!);
  const beyond = bestStatic - MAX_COVERAGE_BONUS;
  for (let g = 0; g < input.groupFoods.length; g++) {
    if (input.groupFoods[g]! < topMin || !mine()) continue;
    const { rids, codes } = input;
    const top = new TopFoods(depth, ranks.place);
    let named = 0;
    for (let i = input.groupStart[g]!; i < input.groupStart[g + 1]!; i++) {
      const kind = codes[i]! >>> 1;
      const tier = codes[i]! & 1;
      named += tier;
      if (!top.mayEnter(tier, BASE_PARTS[kind]! + beyond)) continue;
      top.add(rids[i]!, tier, finalScore(BASE_PARTS[kind]!, BASE_COVERS[kind]!, rids[i]!, ranks));
    }
    out.put(topKey('group', g), topBlob(input.groupFoods[g]!, named, top.sorted()));
  }
  // Prefixes: each food once, at its best completion (slots.ts `better`), as a query's slot has it.
  const none = new Uint32Array(0);
  const vocabulary = new Vocabulary(input.sorted, input.groupOf, input.formOf, new Uint8Array(input.sorted.length), [], none,
    input.groupFoods, input.groupFoods, { hashes: none, words: none });
  // Each food's best entry as one number, (in name, value, coverage) packed so that a larger
  // number is better as slots.ts `better` orders them; 0 for a food not seen yet. The prefix's
  // groups are read a block of rids at a time, all of them, so that a block's entries stay in
  // the processor's cache: a prefix's foods taken group by group were a cache miss each.
  const best = new Float64Array(PREFIX_BLOCK);
  const touched = new Uint32Array(PREFIX_BLOCK);
  const ridLimit = ranks.place.length;
  const wide = wideSlotFoods();
  const postingsOf = (g: number): GroupPostings => {
    const from = input.groupStart[g]!;
    const to = input.groupStart[g + 1]!;
    return { rids: input.rids.subarray(from, to), codes: input.codes.subarray(from, to), parts: BASE_PARTS, covers: BASE_COVERS, forms: input.forms.subarray(from, to) };
  };
  for (let length = 1; length <= MAX_TOP_PREFIX; length++) {
    let previous = '';
    for (const word of input.sorted) {
      if (word.length < length) continue;
      const prefix = word.slice(0, length);
      if (prefix === previous) continue;
      previous = prefix;
      const [from, to] = vocabulary.prefixRange(prefix);
      const groups = new Set<number>();
      let bound = 0;
      for (let w = from; w < to; w++) {
        const g = input.groupOf[w]!;
        if (!groups.has(g)) bound += input.groupFoods[g]!;
        groups.add(g);
      }
      if (bound < topMin || !mine()) continue;
      const { rids, codes, forms } = input;
      // Lists of the completions as beside other words; the first page as the query's only word.
      const choices = prefixAlternatives(prefix, vocabulary, false)[0]!.terms[0]!.choices;
      const alone = prefixAlternatives(prefix, vocabulary, false, true)[0]!.terms[0]!.choices;
      if (bound > wide) {
        // A wide prefix beside other words is read as its common words' lists and this one (engine.ts unionParts).
        const rare = choices.filter((c) => !isCommonChoice(c, input.groupFoods[c.group]!, ridLimit));
        const rest = rare.length === 0 ? undefined : choicesUnion(rare, postingsOf);
        if (rest !== undefined && rest.rids.length > 0) out.put(prefixRestKey(prefix), encodeSlotPostings(rest));
      } else if (options.prefixUnions && !(choices.length === 1 && choices[0]!.forms === ALL_FORMS)) {
        // (One group of every form is its postings seen through an offset: slots.ts shiftedGroup.)
        out.put(prefixUnionKey(prefix), encodeSlotPostings(choicesUnion(choices, postingsOf)));
      }
      const cursor = Uint32Array.from(alone, (c) => input.groupStart[c.group]!);
      const end = Uint32Array.from(alone, (c) => input.groupStart[c.group + 1]!);
      const shift = Float64Array.from(alone, (c) => packEntry(0, c.offset, 0) - PACKED_ZERO);
      const packed = alone.map((c) => (c.partial === true ? PACKED_PARTIAL : PACKED_BASE));
      const top = new TopFoods(depth, ranks.place);
      let matches = 0;
      let named = 0;
      for (let base = 0; base < ridLimit; base += PREFIX_BLOCK) {
        const limit = base + PREFIX_BLOCK;
        let n = 0;
        for (let c = 0; c < alone.length; c++) {
          const mask = alone[c]!.forms;
          const all = mask === ALL_FORMS;
          const add = shift[c]!;
          const table = packed[c]!;
          const stop = end[c]!;
          let i = cursor[c]!;
          for (; i < stop; i++) {
            const rid = rids[i]!;
            if (rid >= limit) break;
            if (!all && (forms[i]! & mask) === 0) continue;
            const key = table[codes[i]!]! + add;
            const at = rid - base;
            const had = best[at]!;
            if (had === 0) touched[n++] = at;
            if (key > had) best[at] = key;
          }
          cursor[c] = i;
        }
        matches += n;
        for (let k = 0; k < n; k++) {
          const at = touched[k]!;
          const entry = unpackEntry(best[at]!);
          best[at] = 0;
          named += entry.named;
          if (!top.mayEnter(entry.named, -entry.value + beyond)) continue;
          top.add(base + at, entry.named, finalScore(-entry.value, entry.cover, base + at, ranks));
        }
      }
      if (matches < topMin) continue;
      out.put(topKey('prefix', prefix), topBlob(matches, named, top.sorted()));
    }
  }
  return taken;
}
