import type { WordPostings } from './postings.js';
import { TopFoods, lowerBound, matchScore, matchTier, seek } from './word-search.js';

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
 * Per postings object, the bitmap and the part order are built on first use (~1 ms a word on
 * average at 1,000,000 foods, ~30 ms for a word in 60 % of them) and kept as long as the
 * postings are (a WeakMap beside the postings cache, whose bound does not count them: up to
 * 4 bytes a posting more, plus 8 bytes per 32 foods for a common word).
 */

/** Lists of at least 1 / 16 of the foods get a bitmap: 8 bytes per 32 rids, while the list holds 6 bytes a food. */
export const BITMAP_DENSITY = 16;

/** A word's foods as one bit per rid, with the count of foods before each 32-bit word: a rid's index in `rids`. */
interface RidBitmap {
  readonly bits: Uint32Array;
  readonly before: Uint32Array;
}

interface Derived {
  bitmap?: RidBitmap | undefined;
  /** Indexes into `rids`, by the word's part, best (lowest) first. */
  byPart?: Uint32Array;
}

const derived = new WeakMap<WordPostings, Derived>();

function derivedOf(p: WordPostings): Derived {
  let d = derived.get(p);
  if (d === undefined) {
    d = {};
    derived.set(p, d);
  }
  return d;
}

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

function bitmapOf(p: WordPostings, ridLimit: number): RidBitmap | undefined {
  const d = derivedOf(p);
  if (d.bitmap === undefined && p.rids.length * BITMAP_DENSITY >= ridLimit) {
    const words = (ridLimit + 31) >>> 5;
    const bits = new Uint32Array(words);
    for (const rid of p.rids) bits[rid >>> 5]! |= 1 << (rid & 31);
    const before = new Uint32Array(words);
    let count = 0;
    for (let w = 0; w < words; w++) {
      before[w] = count;
      count += popcount32(bits[w]!);
    }
    d.bitmap = { bits, before };
  }
  return d.bitmap;
}

/** The list's entries in part order (a counting sort over the word's few distinct parts). */
function byPartOf(p: WordPostings): Uint32Array {
  const d = derivedOf(p);
  if (d.byPart === undefined) {
    const rank = Array.from(p.parts.keys()).sort((a, b) => p.parts[a]! - p.parts[b]!);
    const position = new Uint32Array(p.parts.length);
    rank.forEach((partIndex, r) => (position[partIndex] = r));
    const start = new Uint32Array(p.parts.length + 1);
    for (const code of p.codes) start[position[code >>> 1]! + 1]!++;
    for (let r = 0; r < p.parts.length; r++) start[r + 1]! += start[r]!;
    const order = new Uint32Array(p.rids.length);
    for (let i = 0; i < p.codes.length; i++) order[start[position[p.codes[i]! >>> 1]!]!++] = i;
    d.byPart = order;
  }
  return d.byPart;
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

/**
 * The foods having every word (rids below `ridLimit`), in rid order, each passed to `visit`
 * when given; returns how many there are. Common words' bitmaps are ANDed a 32-bit word at a
 * time; otherwise the shortest list drives and each other is tested by bit or by galloping
 * forward (rids ascend).
 */
function intersect(lists: readonly WordPostings[], ridLimit: number, visit?: (rid: number) => void): number {
  if (lists.length === 0) return 0;
  const bitmaps = lists.map((p) => bitmapOf(p, ridLimit));
  if (bitmaps.every((b) => b !== undefined)) {
    const words = bitmaps.map((b) => b.bits);
    let total = 0;
    for (let w = 0; w < words[0]!.length; w++) {
      let x = words[0]![w]!;
      for (let i = 1; i < words.length && x !== 0; i++) x &= words[i]![w]!;
      if (x === 0) continue;
      total += popcount32(x);
      if (visit !== undefined) {
        for (; x !== 0; x &= x - 1) visit((w << 5) | (31 - Math.clz32(x & -x)));
      }
    }
    return total;
  }
  const driver = lists.reduce((best, p) => (p.rids.length < best.rids.length ? p : best));
  const dense: Uint32Array[] = [];
  const sparse: Uint32Array[] = [];
  lists.forEach((p, i) => {
    if (p === driver) return;
    const bitmap = bitmaps[i];
    if (bitmap !== undefined) dense.push(bitmap.bits);
    else sparse.push(p.rids);
  });
  const at = new Uint32Array(sparse.length);
  const drive = driver.rids;
  let total = 0;
  outer: for (let k = 0; k < drive.length; k++) {
    const rid = drive[k]!;
    const word = rid >>> 5;
    const bit = 1 << (rid & 31);
    for (let i = 0; i < dense.length; i++) if ((dense[i]![word]! & bit) === 0) continue outer;
    for (let i = 0; i < sparse.length; i++) {
      const rids = sparse[i]!;
      const j = seek(rids, at[i]!, rid);
      at[i] = j;
      if (j === rids.length) break outer;
      if (rids[j] !== rid) continue outer;
    }
    total++;
    visit?.(rid);
  }
  return total;
}

/** How many foods have every word (rids below `ridLimit`). */
export function countMatches(lists: readonly WordPostings[], ridLimit: number): number {
  return intersect(lists, ridLimit);
}

/**
 * The same page and total as `topMatches` without a filter, by scoring each food of the
 * intersection (found as `countMatches` finds it) with a lookup per word. For common words
 * with few foods in common, cheaper than `earlyTopMatches`, which cannot stop early then: its
 * page fills slowly, so it reads every list to its end with a lookup per food read.
 */
export function scoredMatches(lists: readonly WordPostings[], depth: number, place: Uint32Array): { rids: number[]; total: number } {
  const ridLimit = place.length;
  const top = new TopFoods(depth, place);
  const locate = lists.map((p) => locator(p, ridLimit));
  const at = new Array<number>(lists.length).fill(0);
  const total = intersect(lists, ridLimit, (rid) => {
    for (let j = 0; j < lists.length; j++) at[j] = locate[j]!(rid);
    top.add(rid, matchTier(lists, at), matchScore(lists, at));
  });
  return { rids: top.sorted(), total };
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
