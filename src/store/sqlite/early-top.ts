import type { WordPostings } from './postings.js';
import { bitmapOf, popcount32, rankOf } from './rid-bitmaps.js';
import { TopFoods, forEachCommonFood, lowerBound, matchScore, matchTier, seek } from './word-search.js';

/**
 * Unfiltered multi-word searches whose words are common, without visiting every match.
 *
 * `forEachMatch` scores every food having all the words: "and cooked" is 237,000 of 1,000,000
 * generated foods, ~15 ms. Here the page and the total are found apart:
 * - the page by the threshold algorithm: the shortest list is read in order of its word's bm25
 *   part, best first; each food is looked up in the other lists (a bit test and a rank for a
 *   common word, a binary search otherwise) and scored exactly as forEachMatch scores it. A
 *   food not yet read scores no better than the current part plus the other words' best parts,
 *   so once the kept page's worst food is in the name tier and scores better than that bound,
 *   no food not yet read can enter the page;
 * - the total by counting: common words' bitmaps are ANDed a 32-bit word at a time, other lists
 *   intersected by galloping without scoring.
 * Per postings object, the part order (and a common word's bitmap, rid-bitmaps.ts) are built
 * on first use (~1 ms a word on average at 1,000,000 foods, ~30 ms for a word in 60 % of
 * them) and kept as long as the postings are (a WeakMap beside the postings cache, whose bound
 * does not count them: 4 bytes a posting more).
 */

/** Derived per postings object: indexes into `rids`, by the word's part, best (lowest) first. */
const partOrders = new WeakMap<WordPostings, Uint32Array>();

/** The list's entries in part order (a counting sort over the word's few distinct parts). */
function byPartOf(p: WordPostings): Uint32Array {
  let order = partOrders.get(p);
  if (order === undefined) {
    const rank = Array.from(p.parts.keys()).sort((a, b) => p.parts[a]! - p.parts[b]!);
    const position = new Uint32Array(p.parts.length);
    rank.forEach((partIndex, r) => (position[partIndex] = r));
    const start = new Uint32Array(p.parts.length + 1);
    const codes = p.codes;
    for (let i = 0; i < codes.length; i++) start[position[codes[i]! >>> 1]! + 1]!++; // indexed: see bitmapOf
    for (let r = 0; r < p.parts.length; r++) start[r + 1]! += start[r]!;
    order = new Uint32Array(p.rids.length);
    for (let i = 0; i < codes.length; i++) order[start[position[codes[i]! >>> 1]!]!++] = i;
    partOrders.set(p, order);
  }
  return order;
}

/** A rid's index in the list, or -1: a bit test and a rank for a bitmap, a binary search otherwise. */
function locator(p: WordPostings, ridLimit: number): (rid: number) => number {
  const bitmap = bitmapOf(p, ridLimit);
  if (bitmap !== undefined) {
    const { bits, before } = bitmap;
    return (rid) => {
      const word = bits[rid >>> 5]!;
      const bit = 1 << (rid & 31);
      return (word & bit) === 0 ? -1 : before[rid >>> 5]! + popcount32(word & (bit - 1));
    };
  }
  const rids = p.rids;
  return (rid) => {
    const at = lowerBound(rids, 0, rids.length, rid);
    return at < rids.length && rids[at] === rid ? at : -1;
  };
}

/** Builds a list's bitmap and part order now (a server warming up) rather than at its first search. */
export function prepareForEarlyTop(p: WordPostings, ridLimit: number): void {
  bitmapOf(p, ridLimit);
  byPartOf(p);
}

/** Where `matchingFoods` collects rids: reused, since a search runs to its end before the next. */
let scratch = new Uint32Array(1024);

/**
 * How many foods have every word (rids below `ridLimit`), and which, in rid order, when they
 * are at most `cap` (undefined otherwise): counting and collecting are one pass, so scoring a
 * few foods in common does not intersect the lists again. The returned array is valid until
 * the next call. Common words' bitmaps are ANDed a 32-bit word at a time; otherwise the
 * shortest list drives and each other is tested by bit or by galloping forward (rids ascend).
 */
export function matchingFoods(lists: readonly WordPostings[], ridLimit: number, cap: number): { total: number; rids: Uint32Array | undefined } {
  if (lists.length === 0) return { total: 0, rids: new Uint32Array(0) };
  if (scratch.length < cap) scratch = new Uint32Array(cap);
  const out = scratch;
  const bitmaps = lists.map((p) => bitmapOf(p, ridLimit));
  let total = 0;
  if (bitmaps.every((b) => b !== undefined)) {
    const words = bitmaps.map((b) => b.bits);
    for (let w = 0; w < words[0]!.length; w++) {
      let x = words[0]![w]!;
      for (let i = 1; i < words.length && x !== 0; i++) x &= words[i]![w]!;
      if (x === 0) continue;
      const count = popcount32(x);
      if (total + count <= cap) {
        for (let k = total; x !== 0; x &= x - 1) out[k++] = (w << 5) | (31 - Math.clz32(x & -x));
      }
      total += count;
    }
    return { total, rids: total <= cap ? out.subarray(0, total) : undefined };
  }
  forEachCommonFood(lists, undefined, ridLimit, false, (rid) => {
    if (total < cap) out[total] = rid;
    total++;
  });
  return { total, rids: total <= cap ? out.subarray(0, total) : undefined };
}

/**
 * The first `depth` foods in full order among `rids` (ascending, each having every word),
 * each scored as `topMatches` scores it: a bit test and a rank in a common word's bitmap,
 * else a galloping search forward in its list. For common words with few foods in common,
 * cheaper than `earlyTopMatches`, which cannot stop early then: its page fills slowly, so it
 * reads every list to its end with a lookup per food read.
 */
export function scoreFoods(lists: readonly WordPostings[], rids: Uint32Array, depth: number, place: Uint32Array): number[] {
  const top = new TopFoods(depth, place);
  const bitmaps = lists.map((p) => bitmapOf(p, place.length));
  const cursor = new Uint32Array(lists.length);
  for (let k = 0; k < rids.length; k++) {
    const rid = rids[k]!;
    let tier = 1;
    let sum = 0;
    for (let i = 0; i < lists.length; i++) {
      const list = lists[i]!;
      const bitmap = bitmaps[i];
      let at: number;
      if (bitmap !== undefined) at = rankOf(bitmap, rid);
      else {
        at = seek(list.rids, cursor[i]!, rid);
        cursor[i] = at;
      }
      const code = list.codes[at]!;
      tier &= code;
      // As matchScore adds them: each part negated, in query order, the sum negated.
      sum += -list.parts[code >>> 1]!;
    }
    top.add(rid, tier, -sum);
  }
  return top.sorted();
}

/** Margin on the bound: the stored parts are added in another order there, so it may differ in the last bits. */
const BOUND_SLACK = 1e-9;

/**
 * The first `depth` rids of the full order among the foods having every word, the same as
 * `topMatches` without a filter. Every list is read in part order, one entry of each in turn
 * (the threshold algorithm): a food read for the first time is looked up in the other lists and
 * scored. A food not yet read has, in every list, a part no better than that list's next one,
 * so it scores no better than their sum: once the kept page's worst food is in the name tier
 * and beats that sum, the page is final.
 */
export function earlyTopMatches(lists: readonly WordPostings[], depth: number, place: Uint32Array): number[] {
  const ridLimit = place.length;
  const top = new TopFoods(depth, place);
  if (lists.length === 0 || depth === 0) return [];
  const orders = lists.map((p) => byPartOf(p));
  const locate = lists.map((p) => locator(p, ridLimit));
  const cursor = new Array<number>(lists.length).fill(0);
  const at = new Array<number>(lists.length).fill(0);
  // Only foods having every word are kept: the others are looked up again if read again.
  const kept = new Set<number>();
  for (;;) {
    let bound = 0;
    for (let i = 0; i < lists.length; i++) {
      // A list read to its end: every food having all the words has been read from it.
      if (cursor[i] === orders[i]!.length) return top.sorted();
      const list = lists[i]!;
      bound += list.parts[list.codes[orders[i]![cursor[i]!]!]! >>> 1]!;
    }
    if (top.full && top.worstTier === 1 && top.worstScore < bound - BOUND_SLACK * Math.max(1, Math.abs(bound))) return top.sorted();
    for (let i = 0; i < lists.length; i++) {
      const index = orders[i]![cursor[i]!++]!;
      const rid = lists[i]!.rids[index]!;
      if (kept.has(rid)) continue;
      let missing = false;
      for (let j = 0; j < lists.length && !missing; j++) {
        at[j] = j === i ? index : locate[j]!(rid);
        missing = at[j]! < 0;
      }
      if (missing) continue;
      kept.add(rid);
      top.add(rid, matchTier(lists, at), matchScore(lists, at));
    }
  }
}
