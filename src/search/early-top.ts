import type { SlotPostings } from './postings.js';
import { bonusPotential } from './ranking.js';
import { bitmapOf, nameBitsOf, popcount32, rankOf } from './rid-bitmaps.js';
import { TopFoods, finalScore, lowerBound, matchScore, matchTier, seek, shortestList, type FoodRanks } from './word-search.js';

/**
 * Unfiltered multi-word searches whose words are common, without visiting every match.
 *
 * `forEachMatch` scores every food having all the words: "and cooked" is 237,000 of 1,000,000
 * generated foods, ~15 ms. Here the page and the total are found apart:
 * - the total by counting: common words' bitmaps are ANDed a 32-bit word at a time, other lists
 *   intersected by galloping (or merged, two alike in size) without scoring; the name tier
 *   (foods with every word in their name, which rank first) is found in the same pass;
 * - the page from the name tier alone when it is small and fills the page; else by the
 *   threshold algorithm (`earlyTopMatches`): lists are read in order of their word's bm25
 *   part, best first; each food is looked up in the other lists (a bit test and a rank for a
 *   common word, a binary search otherwise) and scored exactly as forEachMatch scores it, until
 *   no food not yet read can enter the page.
 * Per postings object, the part order (and a common word's bitmaps, rid-bitmaps.ts) are built
 * on first use (~1 ms a word on average at 1,000,000 foods, ~30 ms for a word in 60 % of
 * them) and kept as long as the postings are (a WeakMap beside the postings cache, whose bound
 * does not count them: 4 bytes a posting more).
 */

/** Derived per postings object: indexes into `rids`, by the kind's worth, best (lowest) first. */
const partOrders = new WeakMap<SlotPostings, Uint32Array>();

/**
 * What an entry of kind `kind` can at best bring a food's score (lower is better): its part,
 * less every coverage bonus it could take part in (ranking.ts bonusPotential).
 */
export function worthOf(p: SlotPostings, kind: number): number {
  return p.parts[kind]! - bonusPotential(p.covers[kind]!);
}

/** The list's entries in order of worth (a counting sort over the word's few kinds). */
function byPartOf(p: SlotPostings): Uint32Array {
  let order = partOrders.get(p);
  if (order === undefined) {
    const rank = Array.from(p.parts.keys()).sort((a, b) => worthOf(p, a) - worthOf(p, b));
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
function locator(p: SlotPostings, ridLimit: number): (rid: number) => number {
  const bitmap = bitmapOf(p, ridLimit);
  if (bitmap !== undefined) {
    const bits = bitmap.bits;
    return (rid) => ((bits[rid >>> 5]! & (1 << (rid & 31))) === 0 ? -1 : rankOf(bitmap, rid));
  }
  const rids = p.rids;
  return (rid) => {
    const at = lowerBound(rids, 0, rids.length, rid);
    return at < rids.length && rids[at] === rid ? at : -1;
  };
}

/**
 * Builds a list's bitmaps now (a server warming up) rather than at its first search. Not its
 * part order: early termination now serves only plans with a wide slot of synonyms
 * (engine.ts), and the orders of the commonest lists held ~13 MiB at 1,000,000 foods.
 */
export function prepareBitmaps(p: SlotPostings, ridLimit: number): void {
  bitmapOf(p, ridLimit);
  nameBitsOf(p, ridLimit);
}

/** Where `matchingFoods` collects rids: reused, since a search runs to its end before the next. */
let scratch = new Uint32Array(1024);
let namedScratch = new Uint32Array(1024);

/**
 * How many foods have every word (rids below `ridLimit`), and which, in rid order, when they
 * are at most `cap` (undefined otherwise): counting and collecting are one pass, so scoring a
 * few foods in common does not intersect the lists again. The returned arrays are valid until
 * the next call. Common words' bitmaps are ANDed a 32-bit word at a time, and in the same pass
 * their name bitmaps. Otherwise the shortest list drives and each other is tested by bit or
 * by galloping forward (rids ascend), or merged with it. `named` is the name tier (the foods
 * with every word in their name) when it holds at most `namedCap` foods, else undefined.
 * Without `countAll`, the lists are read only until more than `cap` foods are found (then
 * `total` is only a bound): for callers that need the foods only when they are few.
 */
export function matchingFoods(lists: readonly SlotPostings[], ridLimit: number, cap: number, namedCap = 0, countAll = true): {
  total: number; rids: Uint32Array | undefined; named?: Uint32Array | undefined;
} {
  const common = commonFoods(lists, ridLimit, cap, namedCap, countAll ? Infinity : cap);
  // Stopped early: the total is only known to exceed the cap, the name tier not known.
  return common.total > cap && !countAll ? { total: common.total, rids: undefined, named: undefined } : common;
}

/** `matchingFoods`, reading nothing more once `stopAfter` foods are found. */
function commonFoods(lists: readonly SlotPostings[], ridLimit: number, cap: number, namedCap: number, stopAfter: number): {
  total: number; rids: Uint32Array | undefined; named?: Uint32Array | undefined;
} {
  if (lists.length === 0) return { total: 0, rids: new Uint32Array(0) };
  // One slot more than the cap: drivenThroughBitmaps writes every food it tests.
  if (scratch.length <= cap) scratch = new Uint32Array(cap + 1);
  if (namedScratch.length <= namedCap) namedScratch = new Uint32Array(namedCap + 1);
  const bitmaps = lists.map((p) => bitmapOf(p, ridLimit));
  if (bitmaps.every((b) => b !== undefined)) {
    const words = bitmaps.map((b) => b.bits);
    // A list with a bitmap has name bits too: the same density rule.
    const names = lists.map((p) => nameBitsOf(p, ridLimit)!);
    return countBitmaps(words, names, cap, namedCap, stopAfter);
  }
  const names = lists.map((p) => nameBitsOf(p, ridLimit));
  const driver = shortestList(lists);
  if (lists.length > 1 && bitmaps.every((b, i) => b !== undefined || i === driver)) {
    return drivenThroughBitmaps(lists[driver]!, bitmaps.filter((_, i) => i !== driver).map((b) => b!.bits),
      names.filter((_, i) => i !== driver).map((n) => n!), cap, namedCap, stopAfter);
  }
  return drivenThroughLists(lists, driver, bitmaps.map((b) => b?.bits), names, cap, namedCap, stopAfter);
}

/**
 * `matchingFoods` when more lists than the driver (the shortest) are too sparse for a bitmap:
 * each of the driver's foods is tested by bit in the lists that have a bitmap, then searched
 * forward (galloping) in the others; or, when the shortest of those is alike in size to the
 * driver, the two are merged first (`pairedFoods`) and only the foods they share go on. A food
 * is in the name tier when its code has the name bit in the driver and every searched list,
 * and its bit is set in the others' name bitmaps. One loop without a callback a match
 * (forEachCommonFood's): in process, the fts cold queries that take it spent ~15 % less in it.
 */
function drivenThroughLists(lists: readonly SlotPostings[], driver: number, bitmaps: readonly (Uint32Array | undefined)[], names: readonly (Uint32Array | undefined)[],
  cap: number, namedCap: number, stopAfter: number): { total: number; rids: Uint32Array | undefined; named: Uint32Array | undefined } {
  const out = scratch;
  const namedOut = namedScratch;
  const dense: Uint32Array[] = [];
  const denseNames: Uint32Array[] = [];
  const sparse: SlotPostings[] = [];
  lists.forEach((list, i) => {
    if (i === driver) return;
    const bits = bitmaps[i];
    if (bits === undefined) sparse.push(list);
    else {
      dense.push(bits);
      denseNames.push(names[i]!);
    }
  });
  const partner = shortestList(sparse);
  const merge = sparse.length > 0 && sparse[partner]!.rids.length <= lists[driver]!.rids.length * MERGE_RATIO;
  const { rids: candidates, codes: candidateCodes } = merge ? pairedFoods(lists[driver]!, sparse[partner]!) : lists[driver]!;
  const rest = merge ? sparse.filter((_, k) => k !== partner) : sparse;
  const cursors = new Uint32Array(rest.length);
  let total = 0;
  let named = 0;
  outer: for (let c = 0; c < candidates.length; c++) {
    const rid = candidates[c]!;
    const w = rid >>> 5;
    const bit = 1 << (rid & 31);
    for (let k = 0; k < dense.length; k++) if ((dense[k]![w]! & bit) === 0) continue outer;
    const inRest = searchedForward(rest, cursors, rid);
    if (inRest === ENDED) break;
    if (inRest === MISSING) continue;
    const inName = candidateCodes[c]! & inRest;
    if (total < cap) out[total] = rid;
    total++;
    if (total > stopAfter) break;
    if (inName === 0 || named > namedCap) continue;
    for (let k = 0; k < denseNames.length; k++) if ((denseNames[k]![w]! & bit) === 0) continue outer;
    if (named < namedCap) namedOut[named] = rid;
    named++;
  }
  return found(total, cap, named, namedCap);
}

/** `searchedForward`'s answers when a list does not have the food, or has none at or past it. */
const MISSING = -1;
const ENDED = -2;

/**
 * Whether every one of `lists` has `rid`, each searched forward (galloping) from its cursor,
 * which it moves on (rids are asked in ascending order): the name bits of its codes there
 * ANDed (0 or 1), MISSING when a list does not have it, ENDED when one has no food from it on.
 */
function searchedForward(lists: readonly SlotPostings[], cursors: Uint32Array, rid: number): number {
  let inName = 1;
  for (let k = 0; k < lists.length; k++) {
    const { rids, codes } = lists[k]!;
    const at = seek(rids, cursors[k]!, rid);
    cursors[k] = at;
    if (at === rids.length) return ENDED;
    if (rids[at] !== rid) return MISSING;
    inName &= codes[at]!;
  }
  return inName;
}

/**
 * A sparse list at most this many times as long as the driver is merged with it rather than
 * searched forward from each of the driver's foods (`pairedFoods`). In process at 1,000,000 foods
 * (the least of 300 answers), against galloping: `chicken pork*` (45,412 and 57,513 foods)
 * 1.14 → 0.43 ms, `roasted read*` 1.06 → 0.41, with a third sparse word `dry fresh lo*` 1.03 →
 * 0.44; with the merge tested food by food, at 5 to 8 times some were faster, some slower.
 */
const MERGE_RATIO = 4;

/** Where `pairedFoods` writes: reused, since a search runs to its end before the next. */
let pairRids = new Uint32Array(1024);
let pairCodes = new Uint32Array(1024);

/**
 * The foods of both lists, each with its codes' name bits ANDed (valid until the next call): a
 * merge whose steps move on in one list without a branch (which one is as good as random);
 * finding the same food in both, the rarer case, is the branch.
 */
function pairedFoods(a: SlotPostings, b: SlotPostings): { rids: Uint32Array; codes: Uint32Array } {
  const { rids: x, codes: xCodes } = a;
  const { rids: y, codes: yCodes } = b;
  const most = Math.min(x.length, y.length);
  if (pairRids.length < most) {
    pairRids = new Uint32Array(most);
    pairCodes = new Uint32Array(most);
  }
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < x.length && j < y.length) {
    const r = x[i]!;
    const s = y[j]!;
    if (r !== s) {
      // Rids are below 2^31: a difference's sign bit says which list is behind.
      i += (r - s) >>> 31;
      j += (s - r) >>> 31;
      continue;
    }
    pairRids[k] = r;
    pairCodes[k++] = xCodes[i]! & yCodes[j]! & 1;
    i++;
    j++;
  }
  return { rids: pairRids.subarray(0, k), codes: pairCodes.subarray(0, k) };
}

/**
 * `matchingFoods` over bitmaps: the foods in every `words` bitmap, counted, and collected while
 * at most `cap`; the name tier (in every `names` bitmap too) counted and collected while at
 * most `namedCap`: past it, no more name bits are read, and `named` is only known to exceed it.
 * The results are in the scratch buffers, valid until the next call.
 */
export function countBitmaps(words: readonly Uint32Array[], names: readonly Uint32Array[], cap: number, namedCap: number, stopAfter = Infinity): {
  total: number; rids: Uint32Array | undefined; named: Uint32Array | undefined; namedCount: number;
} {
  if (scratch.length <= cap) scratch = new Uint32Array(cap + 1);
  if (namedScratch.length <= namedCap) namedScratch = new Uint32Array(namedCap + 1);
  if (words.length === 2) return countTwo(words[0]!, words[1]!, names[0]!, names[1]!, cap, namedCap, stopAfter);
  const out = scratch;
  const namedOut = namedScratch;
  let total = 0;
  let named = 0;
  // The first three lists by name, each read once per word (a list ANDed twice changes
  // nothing): the loop over lists is then only for a fourth word on.
  const [a, b = a, c = a] = words as [Uint32Array, ...Uint32Array[]];
  const [na, nb = na, nc = na] = names as [Uint32Array, ...Uint32Array[]];
  for (let w = 0; w < a.length; w++) {
    let x = a[w]! & b[w]! & c[w]!;
    for (let i = 3; i < words.length && x !== 0; i++) x &= words[i]![w]!;
    if (x === 0) continue;
    const count = popcount32(x);
    if (total + count <= cap) collect(x, w, out, total);
    total += count;
    if (total > stopAfter) break;
    if (named > namedCap) continue;
    x &= na[w]! & nb[w]! & nc[w]!;
    for (let i = 3; i < names.length && x !== 0; i++) x &= names[i]![w]!;
    if (x === 0) continue;
    const namedCount = popcount32(x);
    if (named + namedCount <= namedCap) collect(x, w, namedOut, named);
    named += namedCount;
  }
  return { ...found(total, cap, named, namedCap), namedCount: named };
}

/**
 * `countBitmaps` of two lists, the commonest count (a word beside a type-ahead prefix's union,
 * bound-first.ts), as a loop of its own: the general loop is this one with a third list and a
 * check for a fourth, which over two 1,000,000-food bitmaps and their name bits (in cache)
 * took 0.26 ms against 0.20-0.21 here; one loop for up to three lists, the first read again as
 * the third, 0.24. In process, type-ahead after words' p90 went 4-7 % lower
 * (bench/engine-ab.ts, with the union's first bitmap copied: bound-first.ts).
 */
function countTwo(a: Uint32Array, b: Uint32Array, na: Uint32Array, nb: Uint32Array, cap: number, namedCap: number, stopAfter: number): {
  total: number; rids: Uint32Array | undefined; named: Uint32Array | undefined; namedCount: number;
} {
  const out = scratch;
  const namedOut = namedScratch;
  let total = 0;
  let named = 0;
  for (let w = 0; w < a.length; w++) {
    let x = a[w]! & b[w]!;
    if (x === 0) continue;
    const count = popcount32(x);
    if (total + count <= cap) collect(x, w, out, total);
    total += count;
    if (total > stopAfter) break;
    if (named > namedCap) continue;
    x &= na[w]! & nb[w]!;
    if (x === 0) continue;
    const namedCount = popcount32(x);
    if (named + namedCount <= namedCap) collect(x, w, namedOut, named);
    named += namedCount;
  }
  return { ...found(total, cap, named, namedCap), namedCount: named };
}

/**
 * `matchingFoods` when only the driver (the shortest list) is too sparse for a bitmap, the
 * commonest case of a common word beside a rarer one ('and chicken'): each of its foods is
 * one bit test per other list, and its name bit its own code's and the others' name bits.
 * Without branches: whether a food matches is random, and a mispredicted branch per food cost
 * more than the loop's work. Each food is written at the next free slot (a spare slot past the
 * cap takes the overflow) and the slot is kept only when it matched. In process at 1,000,000
 * foods, 'and chicken' (57,513 foods driving, 36,980 in common): 1.19-1.25 ms through
 * forEachCommonFood's callback per match, 0.71 ms in this loop with branches, 0.49 ms without.
 */
function drivenThroughBitmaps(driver: SlotPostings, others: readonly Uint32Array[], otherNames: readonly Uint32Array[], cap: number, namedCap: number, stopAfter: number): {
  total: number; rids: Uint32Array | undefined; named: Uint32Array | undefined;
} {
  const out = scratch;
  const namedOut = namedScratch;
  const { rids, codes } = driver;
  // Up to two other lists by name, as in the all-bitmap loop; a third on takes the inner loop.
  const [a, b = a] = others as [Uint32Array, ...Uint32Array[]];
  const [na, nb = na] = otherNames as [Uint32Array, ...Uint32Array[]];
  let total = 0;
  let named = 0;
  for (let d = 0; d < rids.length; d++) {
    // Checked once a block: the loop itself has no branch on a match.
    if ((d & 4095) === 0 && total > stopAfter) break;
    const rid = rids[d]!;
    const w = rid >>> 5;
    const shift = rid & 31;
    let hit = a[w]! & b[w]!;
    let nameHit = na[w]! & nb[w]!;
    for (let k = 2; k < others.length; k++) {
      hit &= others[k]![w]!;
      nameHit &= otherNames[k]![w]!;
    }
    hit = (hit >>> shift) & 1;
    out[total < cap ? total : cap] = rid;
    total += hit;
    namedOut[named < namedCap ? named : namedCap] = rid;
    named += hit & codes[d]! & (nameHit >>> shift);
  }
  return found(total, cap, named, namedCap);
}

/** What `matchingFoods` returns: the collected foods and name tier (in the scratch buffers) while within their caps. */
function found(total: number, cap: number, named: number, namedCap: number): { total: number; rids: Uint32Array | undefined; named: Uint32Array | undefined } {
  return { total, rids: total <= cap ? scratch.subarray(0, total) : undefined, named: named <= namedCap ? namedScratch.subarray(0, named) : undefined };
}

/** Writes the rids of the bits set in `x` (bitmap word `w`) to `out`, from index `k` on. */
function collect(x: number, w: number, out: Uint32Array, k: number): void {
  for (; x !== 0; x &= x - 1) out[k++] = (w << 5) | (31 - Math.clz32(x & -x));
}

/**
 * The first `depth` foods in full order among `rids` (ascending, each having every word),
 * each scored as `topMatches` scores it: a bit test and a rank in a common word's bitmap,
 * else a galloping search forward in its list. For common words with few foods in common,
 * cheaper than `earlyTopMatches`, which cannot stop early then: its page fills slowly, so it
 * reads every list to its end with a lookup per food read.
 */
export function scoreFoods(lists: readonly SlotPostings[], rids: Uint32Array, depth: number, ranks: FoodRanks): number[] {
  const top = new TopFoods(depth, ranks.place);
  scoreInto(top, lists, rids, ranks);
  return top.sorted();
}

/** Scores each of `rids` (ascending, each having every word) as `scoreFoods` does, into `top`. */
function scoreInto(top: TopFoods, lists: readonly SlotPostings[], rids: Uint32Array, ranks: FoodRanks): void {
  const bitmaps = lists.map((p) => bitmapOf(p, ranks.place.length));
  const cursor = new Uint32Array(lists.length);
  for (let k = 0; k < rids.length; k++) {
    const rid = rids[k]!;
    let tier = 1;
    let sum = 0;
    let cover = 0;
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
      sum += list.parts[code >>> 1]!;
      cover += list.covers[code >>> 1]!;
    }
    top.add(rid, tier, finalScore(sum, cover, rid, ranks));
  }
}

/**
 * Lists whose parts spread less than this share of the widest spread among a query's lists
 * are not read; their best part stands in the bound.
 */
const READ_SPREAD = 0.01;

/**
 * The first `depth` rids of the full order among the foods having every word, the same as
 * `topMatches` without a filter.
 *
 * `named`, when given, is the whole name tier (every word in the name), which ranks first
 * (`matchingFoods`): when it holds at least `depth` foods, they alone are scored
 * (`scoreFoods`); when fewer, they are all scored first.
 *
 * Otherwise, and for the rest of a page, lists are read in order of worth (an entry's part
 * less the coverage bonuses it could take part in), one entry of each in turn (the threshold
 * algorithm): a food read for the first time is looked up in the other lists and scored. A
 * food not yet read has, in every list read, an entry no worthier than that list's next one,
 * and in any other list no worthier than its best, so it scores no better than their sum and
 * the best static part: once the kept page's worst food beats that, and is in the name tier or
 * the whole name tier is kept, the page is final. Without the name tier known, a query whose
 * words are seldom all in a name ('raw cooked fat') could not stop before the lists' ends.
 *
 * Only lists whose parts spread are read: a word in most foods ('and') has parts of nearly
 * equal worth, and reading it brings the bound no lower while each food read costs lookups
 * in the other lists.
 */
export function earlyTopMatches(lists: readonly SlotPostings[], depth: number, ranks: FoodRanks, named?: Uint32Array): number[] {
  const ridLimit = ranks.place.length;
  if (lists.length === 0 || depth === 0) return [];
  if (named !== undefined && named.length >= depth) return scoreFoods(lists, named, depth, ranks);
  const top = new TopFoods(depth, ranks.place);
  // What a food's static part can at best bring beyond its entries' worth.
  const beyondParts = minStaticPart(ranks);
  // Only foods having every word are kept: the others are looked up again if read again.
  const kept = new Set<number>();
  const orders = lists.map((p) => byPartOf(p));
  const locate = lists.map((p) => locator(p, ridLimit));
  const partAt = (i: number, k: number): number => worthOf(lists[i]!, lists[i]!.codes[orders[i]![k]!]! >>> 1);
  const spread = lists.map((_, i) => partAt(i, orders[i]!.length - 1) - partAt(i, 0));
  const widest = Math.max(...spread);
  const reading = spread.map((x) => x >= widest * READ_SPREAD);
  const read = lists.flatMap((_, i) => (reading[i] ? [i] : []));
  const cursor = new Array<number>(lists.length).fill(0);
  const at = new Array<number>(lists.length).fill(0);
  if (named !== undefined) {
    scoreInto(top, lists, named, ranks);
    for (let k = 0; k < named.length; k++) kept.add(named[k]!);
  }
  for (;;) {
    let bound = beyondParts;
    for (let i = 0; i < lists.length; i++) {
      // A list not read is bounded by its best worth.
      const k = reading[i] ? cursor[i]! : 0;
      // A list read to its end: every food having all the words has been read from it.
      if (k === orders[i]!.length) return top.sorted();
      bound += partAt(i, k);
    }
    if (top.full && (named !== undefined || top.worstTier === 1) && top.worstScore < bound) return top.sorted();
    // Once the page is of the name tier, a food without the word in its name cannot enter it.
    const nameTierOnly = top.full && top.worstTier === 1;
    for (let n = 0; n < read.length; n++) {
      const i = read[n]!;
      const index = orders[i]![cursor[i]!++]!;
      if (nameTierOnly && (lists[i]!.codes[index]! & 1) === 0) continue;
      const rid = lists[i]!.rids[index]!;
      if (kept.has(rid)) continue;
      let missing = false;
      for (let j = 0; j < lists.length && !missing; j++) {
        at[j] = j === i ? index : locate[j]!(rid);
        missing = at[j]! < 0;
      }
      if (missing) continue;
      kept.add(rid);
      top.add(rid, matchTier(lists, at), matchScore(lists, at, rid, ranks));
    }
  }
}

/** The lowest static part of any food (cached per ranks object): part of the bound of a food not yet read. */
const minStatic = new WeakMap<FoodRanks, number>();
function minStaticPart(ranks: FoodRanks): number {
  let min = minStatic.get(ranks);
  if (min === undefined) {
    min = 0;
    for (let rid = 0; rid < ranks.staticPart.length; rid++) if (ranks.staticPart[rid]! < min) min = ranks.staticPart[rid]!;
    minStatic.set(ranks, min);
  }
  return min;
}
