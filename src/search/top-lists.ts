import { bytesOf, concat, readUint32, type SearchBlobWriter } from './blobs.js';
import type { Ids } from './blobs.js';
import { prefixAlternatives } from './plan.js';
import { BASE_COVERS, BASE_PARTS } from './postings.js';
import { staticScore } from './ranking.js';
import { better, ALL_FORMS } from './slots.js';
import type { SearchMeta } from './search-meta.js';
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

export function readTopList(bytes: Uint8Array): TopList {
  const all = readUint32(bytes);
  return { matches: all[0]!, named: all[1]!, rids: all.subarray(2) };
}

function topBlob(matches: number, named: number, rids: readonly number[]): Uint8Array {
  return concat([bytesOf(Uint32Array.from([matches, named])), bytesOf(Uint32Array.from(rids))]);
}

/** Each food's static part (negated, as parts are), from its shape: the same at import and at load. */
export function staticParts(servings: Uint8Array, marks: Uint8Array): Float64Array {
  const out = new Float64Array(servings.length);
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
  listOf(group: number): { rids: Uint32Array; codes: Uint8Array; forms: Ids | undefined };
}

export function writeTopLists(input: TopListInput, topMin: number, out: SearchBlobWriter): void {
  const ranks: FoodRanks = { place: input.place, shape: input.shape, staticPart: staticParts(input.servings, input.marks) };
  const depth = input.meta.topDepth;
  for (let g = 0; g < input.groupFoods.length; g++) {
    if (input.groupFoods[g]! < topMin) continue;
    const { rids, codes } = input.listOf(g);
    const top = new TopFoods(depth, ranks.place);
    let named = 0;
    for (let i = 0; i < rids.length; i++) {
      const kind = codes[i]! >>> 1;
      named += codes[i]! & 1;
      top.add(rids[i]!, codes[i]! & 1, finalScore(BASE_PARTS[kind]!, BASE_COVERS[kind]!, rids[i]!, ranks));
    }
    out.put(topKey('group', g), topBlob(rids.length, named, top.sorted()));
  }
  // Prefixes: each food once, at its best completion (slots.ts `better`), as a query's slot has it.
  const none = new Uint32Array(0);
  const vocabulary = new Vocabulary(input.sorted, input.groupOf, input.formOf, new Uint8Array(input.sorted.length), [], none,
    input.groupFoods, input.groupFoods, { hashes: none, words: none });
  const stamp = new Uint32Array(ranks.place.length);
  const bestNamed = new Uint8Array(ranks.place.length);
  const bestValue = new Float64Array(ranks.place.length);
  const bestCover = new Float64Array(ranks.place.length);
  const touched = new Uint32Array(ranks.place.length);
  let round = 0;
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
      if (bound < topMin) continue;
      round++;
      let n = 0;
      for (const choice of prefixAlternatives(prefix, vocabulary, false)[0]!.terms[0]!.choices) {
        const { rids, codes, forms } = input.listOf(choice.group);
        for (let i = 0; i < rids.length; i++) {
          if (forms !== undefined && choice.forms !== ALL_FORMS && (forms[i]! & choice.forms) === 0) continue;
          const rid = rids[i]!;
          const kind = codes[i]! >>> 1;
          const named = codes[i]! & 1;
          const value = -BASE_PARTS[kind]! + choice.offset;
          const cover = BASE_COVERS[kind]!;
          if (stamp[rid] !== round) {
            stamp[rid] = round;
            touched[n++] = rid;
          } else if (!better(named, value, cover, bestNamed[rid]!, bestValue[rid]!, bestCover[rid]!)) {
            continue;
          }
          bestNamed[rid] = named;
          bestValue[rid] = value;
          bestCover[rid] = cover;
        }
      }
      if (n < topMin) continue;
      const top = new TopFoods(depth, ranks.place);
      let named = 0;
      for (let k = 0; k < n; k++) {
        const rid = touched[k]!;
        named += bestNamed[rid]!;
        top.add(rid, bestNamed[rid]!, finalScore(-bestValue[rid]!, bestCover[rid]!, rid, ranks));
      }
      out.put(topKey('prefix', prefix), topBlob(n, named, top.sorted()));
    }
  }
}
