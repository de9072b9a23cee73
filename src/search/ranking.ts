import { COUNTED_SEGMENTS, FIRST_OUTSIDE_NAME, PLACEMENTS } from './food-text.js';

/**
 * The relevance score within a tier (contract C3: foods with every word in the name first, then
 * the rest; within each, this score, higher first; then name order). Every term is a whole
 * number, so sums are exact in any order: the fast paths and the reference path add them in
 * different orders and must agree to the last bit.
 *
 *   score = Σ over the query's words of value(where the word stands in the food) + offset
 *         + static(food)
 *         + bonus for each of the name's first segments every word of which the query has
 *         + bonus when the query has every word of the name
 *
 * - value: a word at the head of the name (`Apples, raw` for `apple`) is worth most, then the
 *   head segment, the second segment, later segments, then the other fields;
 * - offset: what the word's match cost (a typo correction, a synonym) and, for a type-ahead
 *   word's completion or a typo's correction, how common that word is;
 * - static: how plain the food is (fewer segments and words);
 * - the bonuses: the query names the food's whole head segment (`Apples` in `Apples, raw`,
 *   not `Apple juice, canned`; of a class's food, `Fish, salmon`, the class word or the kind,
 *   which the import places at the head: build.ts CLASS_KINDS), a whole later segment (of the
 *   third, the maker's words aside: food-text.ts `namesNoProduct`), or the
 *   whole name (a type-ahead word names it only as typed, not by a longer completion:
 *   `partialCover`).
 * docs/search.md explains them with examples; `npm run relevance` measures them (bench/RELEVANCE.md),
 * and the commits that set each weight give its measured effect (`git log -- src/search/ranking.ts`).
 */

/** Increments whenever a weight changes: stored first pages (build.ts) were ranked by one version. */
export const RANKING_VERSION = 8;

export const WEIGHTS = {
  /** By placement (food-text.ts PLACEMENT): head, head segment, second segment, later segment, classification, other names, brand, description. */
  placement: [40, 30, 28, 20, 10, 8, 6, 2],
  /** The query has every word of the name's first, second, third segment. */
  segmentCovered: [40, 15, 5],
  /** The query has every word of the name. */
  nameCovered: 40,
  /** Per serving (household measure) the food lists after the first, up to `servingsCounted`. */
  perServing: 3,
  servingsCounted: 10,
  /** By mark (food-words.ts MARK, bit by bit): plain, processed, imitation, baby, restaurant, preserved, branded, part. */
  marks: [8, -10, -15, -20, -8, -3, -5, -10],
  /** A corrected word, per edit. */
  perEdit: -8,
  /** A word matched through a synonym (a penalty of 4 cost 0.01 of s@1 on the judged set: a synonym is what the person meant). */
  synonym: 0,
  /** A type-ahead completion or a typo's correction, per doubling of the foods that have it. */
  perCompletionDoubling: 2,
} as const;

/**
 * A word's match in a food is one of 64 kinds: its placement (3 bits) and which of the first
 * three name segments have it (3 bits). A posting's code is `kind × 2 + (1 if in the name)`.
 */
export const KINDS = PLACEMENTS << COUNTED_SEGMENTS;

export function kindOf(placement: number, segments: number): number {
  return placement | (segments << 3);
}

export function placementOf(kind: number): number {
  return kind & 7;
}

export function inName(kind: number): boolean {
  return placementOf(kind) < FIRST_OUTSIDE_NAME;
}

/**
 * What a kind adds to the coverage sum: one per counted segment it is in (byte s), and one
 * in the top byte when it is in the name. Sums stay below 256 a byte: queries are cut at
 * MAX_QUERY_WORDS words.
 */
export function coverOf(kind: number): number {
  let cover = inName(kind) ? 1 << 24 : 0;
  for (let s = 0; s < COUNTED_SEGMENTS; s++) if ((kind >> (3 + s)) & 1) cover += 1 << (8 * s);
  return cover;
}

/**
 * The coverage of a lone type-ahead word's completion that is not the word as typed (`mi*` as
 * `miso`; plan.ts prefixAlternatives): it counts for the segments' bonuses but not the name's,
 * since the person has not named the food whole (`mi*` put *Miso* before *Milk, whole*, `eg*`
 * *Eggnog* before *Egg, whole*).
 */
export function partialCover(cover: number): number {
  return cover & 0xffffff;
}

/** Words of a query beyond this are dropped (the coverage sums count in bytes). */
export const MAX_QUERY_WORDS = 32;

/**
 * A food's shape, as the importer stores it: the distinct words (forms counted once) of each
 * counted segment (byte s) and of the whole name (top byte), each at most 255.
 */
export function packShape(segmentWords: readonly number[], nameWords: number): number {
  let shape = Math.min(nameWords, 255) * 2 ** 24;
  segmentWords.forEach((n, s) => (shape += Math.min(n, 255) << (8 * s)));
  return shape;
}

/** The bonus for a food of `shape` whose matched words cover `cover` (sums of coverOf). */
export function coverageBonus(cover: number, shape: number): number {
  let bonus = 0;
  for (let s = 0; s < COUNTED_SEGMENTS; s++) {
    const size = (shape >>> (8 * s)) & 255;
    if (size > 0 && ((cover >>> (8 * s)) & 255) >= size) bonus += WEIGHTS.segmentCovered[s]!;
  }
  const words = shape >>> 24;
  if (words > 0 && cover >>> 24 >= words) bonus += WEIGHTS.nameCovered;
  return bonus;
}

/** The largest coverage bonus. */
export const MAX_COVERAGE_BONUS = WEIGHTS.segmentCovered.reduce((a, b) => a + b, 0) + WEIGHTS.nameCovered;

/**
 * The most coverage bonus a word's match of coverage `cover` can take part in: a segment's
 * bonus needs some word in that segment, the name's some word in the name. A food's bonus is at
 * most the sum of this over its words' matches (early-top.ts bounds unread foods with it).
 */
export function bonusPotential(cover: number): number {
  let potential = (cover >>> 24) > 0 ? WEIGHTS.nameCovered : 0;
  for (let s = 0; s < COUNTED_SEGMENTS; s++) if (((cover >>> (8 * s)) & 255) > 0) potential += WEIGHTS.segmentCovered[s]!;
  return potential;
}

/**
 * A food's static part: how commonly it is eaten, by the servings (household measures) it lists,
 * and how plain it is, by its marks (food-words.ts). Fewer name segments or words were tried as
 * plainness and left out: with servings counted, they cost 0.01 of nDCG@10 on the judged set.
 */
export function staticScore(servings: number, marks: number): number {
  let score = WEIGHTS.perServing * Math.min(Math.max(0, servings - 1), WEIGHTS.servingsCounted);
  for (let bit = 0; bit < WEIGHTS.marks.length; bit++) if ((marks >> bit) & 1) score += WEIGHTS.marks[bit]!;
  return score;
}

/**
 * The offset of a word a query reaches by a type-ahead completion or a typo's correction: words
 * that more foods have come first (`mil*` is `milk` before `millet`; `grean` is `green` before
 * `great`), by the number of foods with the word, in powers of two.
 */
export function commonnessOffset(foods: number): number {
  return WEIGHTS.perCompletionDoubling * Math.min(16, Math.floor(Math.log2(foods + 1)));
}
