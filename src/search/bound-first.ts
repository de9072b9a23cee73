import { envInteger } from '../config.js';
import { NO_PLACE } from './build.js';
import type { SlotPostings } from './postings.js';
import { MAX_COVERAGE_BONUS, WEIGHTS, coverageBonus } from './ranking.js';
import { bitmapOf, nameBitsOf, popcount32, rankOf, type RidBitmap } from './rid-bitmaps.js';
import { COVER_SPAN, NAMED, VALUE_SPAN, packedCodes, unpackEntry } from './slots.js';
import { countBitmaps } from './early-top.js';
import { TopFoods, finalScore, lowerBound, seek, type FoodRanks } from './word-search.js';

/**
 * Unfiltered first pages of queries whose slots are large, without making their lists.
 *
 * A slot is a union of lists (`UnionSlot`): one stored list for a word, or, for a word of many
 * choices (a type-ahead prefix completes to hundreds of words, a typo to several corrections),
 * the stored lists of its common choices as they are, each with its choice's offset, beside one
 * list made of the others (the slot's rare choices, slots.ts `materialize`). A food's entry in
 * a slot is its best entry in any of those lists (slots.ts `better`), as `materialize` would
 * have made it, so every score is the reference path's to the last bit.
 *
 * - When a slot is a single list too sparse for a bitmap, its foods drive: each is looked up in
 *   the other slots' lists (a bit test and a rank in a common list, a galloping search forward
 *   in another) and scored (`drivenPage`); or, when they are more, the foods every slot has
 *   are collected and read best bound first (`candidatesPage`).
 * - Otherwise every slot has a bitmap (a union's is its lists' ORed): the total and the name
 *   tier are counted a 32-bit word at a time, and the page is read best bound first
 *   (`boundFirstPage`): foods in order of what their static part and shape allow them to score
 *   at best (`boundOrder`), scored one by one until no food left can enter the page.
 */

/** One list of a slot, with the offset its choice adds to every entry's value. */
export interface SlotPart {
  readonly list: SlotPostings;
  readonly offset: number;
}

/** A slot's lists: a food matches the slot when one of them has it, at its best entry there. */
export type UnionSlot = readonly SlotPart[];

/** A slot's lists as the loops read them. */
interface Prepared {
  readonly rids: Uint32Array[];
  readonly codes: SlotPostings['codes'][];
  readonly packed: Float64Array[];
  /** Bitmap of each list, or undefined for a sparse one (searched). */
  readonly bitmaps: (RidBitmap | undefined)[];
  /** Forward cursors of the sparse lists, for foods visited in rid order. */
  readonly cursors: Uint32Array;
  /** The lowest part (negated value) any entry can have: the slot's share of a bound. */
  readonly bestPart: number;
}

function prepare(slot: UnionSlot, ridLimit: number): Prepared {
  let bestPart = Infinity;
  const packed = slot.map((p) => packedCodes(p.list, p.offset));
  for (const table of packed) {
    for (let code = 0; code < table.length; code++) bestPart = Math.min(bestPart, -unpackEntry(table[code]!).value);
  }
  return {
    rids: slot.map((p) => p.list.rids),
    codes: slot.map((p) => p.list.codes),
    packed,
    bitmaps: slot.map((p) => bitmapOf(p.list, ridLimit)),
    cursors: new Uint32Array(slot.length),
    bestPart,
  };
}

/**
 * The food's best entry in the slot, packed; 0 when no list has it. With `forward`, sparse
 * lists are searched from their cursors (foods visited in rid order), else from the start.
 */
function entryOf(s: Prepared, rid: number, forward: boolean): number {
  let best = 0;
  for (let i = 0; i < s.rids.length; i++) {
    const bitmap = s.bitmaps[i];
    let at: number;
    if (bitmap !== undefined) {
      if ((bitmap.bits[rid >>> 5]! & (1 << (rid & 31))) === 0) continue;
      at = rankOf(bitmap, rid);
    } else {
      const rids = s.rids[i]!;
      at = forward ? seek(rids, s.cursors[i]!, rid) : lowerBound(rids, 0, rids.length, rid);
      if (forward) s.cursors[i] = at;
      if (at === rids.length || rids[at] !== rid) continue;
    }
    const key = s.packed[i]![s.codes[i]![at]!]!;
    if (key > best) best = key;
  }
  return best;
}

/** Scores a food from its slots' entries (packed, each non-zero) into `top`, as matchScore and matchTier do. */
function scoreEntries(top: TopFoods, rid: number, entries: Float64Array, ranks: FoodRanks): number {
  let tier = 1;
  let sum = 0;
  let cover = 0;
  for (let s = 0; s < entries.length; s++) {
    // unpackEntry without an object a slot (most of a page's time went to making them).
    const key = entries[s]!;
    const named = key >= NAMED ? 1 : 0;
    const rest = key - named * NAMED;
    const value = Math.floor(rest / COVER_SPAN);
    tier &= named;
    sum -= value - VALUE_SPAN;
    cover += rest - value * COVER_SPAN;
  }
  // Most foods cannot enter a full page even with every bonus: their bonus is not worked out.
  if (top.mayEnter(tier, sum + ranks.staticPart[rid]! - MAX_COVERAGE_BONUS)) top.add(rid, tier, finalScore(sum, cover, rid, ranks));
  return tier;
}

/**
 * The page when few foods can match: `candidates` (rids ascending; the foods some slots have in
 * common, or one slot's), each looked up in every slot and scored. Returns the first `depth`
 * rids in full order and how many matched.
 */
export function drivenPage(slots: readonly UnionSlot[], candidates: Uint32Array, depth: number, ranks: FoodRanks): { rids: number[]; total: number } {
  const { top, total } = drivenTop(slots, candidates, depth, ranks);
  return { rids: top.sorted(), total };
}

/** `drivenPage`'s foods before they are sorted: the worst of a full page is what an unread food must beat. */
export function drivenTop(slots: readonly UnionSlot[], candidates: Uint32Array, depth: number, ranks: FoodRanks): { top: TopFoods; total: number } {
  const ridLimit = ranks.place.length;
  const top = new TopFoods(depth, ranks.place);
  const total = scoreCandidates(slots.map((slot) => prepare(slot, ridLimit)), candidates, top, ranks);
  return { top, total };
}

/**
 * Scores into `top` each candidate (rids ascending) that every slot has; returns how many
 * every slot has.
 */
function scoreCandidates(prepared: readonly Prepared[], candidates: Uint32Array, top: TopFoods, ranks: FoodRanks): number {
  const entries = new Float64Array(prepared.length);
  let matched = 0;
  outer: for (let d = 0; d < candidates.length; d++) {
    const rid = candidates[d]!;
    for (let s = 0; s < prepared.length; s++) {
      const entry = entryOf(prepared[s]!, rid, true);
      if (entry === 0) continue outer;
      entries[s] = entry;
    }
    matched++;
    scoreEntries(top, rid, entries, ranks);
  }
  return matched;
}

/** Reused bitmaps of unions (a search runs to its end before the next). */
const unionScratch: Uint32Array[] = [];

/** The slot's foods and name-tier foods as bitmaps: a single list's own, a union's ORed into scratch. */
function slotBitmaps(slot: UnionSlot, ridLimit: number, scratchAt: number): { bits: Uint32Array; names: Uint32Array } {
  if (slot.length === 1) {
    const bits = bitmapOf(slot[0]!.list, ridLimit);
    const names = nameBitsOf(slot[0]!.list, ridLimit);
    if (bits !== undefined && names !== undefined) return { bits: bits.bits, names };
  }
  const words = (ridLimit + 31) >>> 5;
  // A union's first list of a bitmap's density is copied in (a memcpy), not ORed into a
  // cleared scratch: a type-ahead prefix's union is mostly one common completion's bitmap and
  // a sparse rest (at 1,000,000 foods, 2.2 lists a union in type-ahead after words).
  const first = slot.findIndex(({ list }) => bitmapOf(list, ridLimit) !== undefined && nameBitsOf(list, ridLimit) !== undefined);
  const scratch = (k: number, from: Uint32Array | undefined): Uint32Array => {
    let a = unionScratch[k];
    if (a === undefined || a.length !== words) unionScratch[k] = a = new Uint32Array(words);
    if (from !== undefined) a.set(from);
    else a.fill(0);
    return a;
  };
  const bits = scratch(2 * scratchAt, first < 0 ? undefined : bitmapOf(slot[first]!.list, ridLimit)!.bits);
  const names = scratch(2 * scratchAt + 1, first < 0 ? undefined : nameBitsOf(slot[first]!.list, ridLimit));
  for (let i = 0; i < slot.length; i++) {
    if (i === first) continue;
    const list = slot[i]!.list;
    const bitmap = bitmapOf(list, ridLimit);
    const named = nameBitsOf(list, ridLimit);
    if (bitmap !== undefined && named !== undefined) {
      const b = bitmap.bits;
      for (let w = 0; w < words; w++) {
        bits[w]! |= b[w]!;
        names[w]! |= named[w]!;
      }
    } else {
      const { rids, codes } = list;
      for (let k = 0; k < rids.length; k++) {
        const rid = rids[k]!;
        const w = rid >>> 5;
        const bit = 1 << (rid & 31);
        bits[w]! |= bit;
        // Without a branch: whether a food has the word in its name is as good as random, and
        // mispredicted it took 2.5 times as long (~9 ns a food, 60,000 foods a slot).
        names[w]! |= bit & -(codes[k]! & 1);
      }
    }
  }
  return { bits, names };
}

/**
 * The query's most coverage: `units` a segment's byte and `named` (at most `units`) the name's:
 * no food whose query has `units` slots (each adds at most one a byte, ranking.ts coverOf), of
 * which `named` may count for the name (a type-ahead word's longer completions do not:
 * ranking.ts partialCover), covers more, so `coverageBonus` of it bounds the food's bonus.
 */
export interface CoverBound {
  readonly units: number;
  readonly named: number;
  /** The slots whose values are placements' weights and offsets; absent when none is. */
  readonly placed?: PlacedSlots;
}

/**
 * Slots of one term of one word (a word, a type-ahead prefix, a typo's corrections: engine.ts
 * `placedSlots`), whose every entry's value is its placement's weight (ranking.ts WEIGHTS) plus
 * a choice's offset: `mostOffset[s]` is the largest offset of slot s, undefined for another
 * slot (synonyms, phrases), whose best part counts as it is. Such slots' values are bounded by
 * the placements a food's name has (`placementMost`), not each by a head's: a name has one or
 * two words at its head. Read in bound order, `and cooked coo*` passed over 135,747 foods and
 * scored 6,218 with every slot at the head, 32,034 and 1,327 so bounded.
 */
export interface PlacedSlots {
  /** The sizes of the groups of placed slots that one word of a food may match together, largest first. */
  readonly together: readonly number[];
  readonly mostOffset: readonly (number | undefined)[];
}

/** A bound order's key: the coverage bound, and how placed slots go together when they count (up to ORDERED_UNITS slots). */
interface OrderKey {
  readonly cover: number;
  readonly together: readonly number[] | undefined;
  readonly key: number;
}

function orderKey(bound: CoverBound): OrderKey {
  if (bound.units > ORDERED_UNITS) return { cover: coverOfUnits(ALL_UNITS, ALL_UNITS), together: undefined, key: coverOfUnits(ALL_UNITS, ALL_UNITS) };
  const cover = coverOfUnits(bound.units, Math.min(bound.named, bound.units));
  // Placed slots that one word may match all (`cheddar ch*`) take the head a food has, as
  // their best parts say: no order of their own (each order holds 1.5 MiB).
  const together = bound.placed !== undefined && bound.placed.together.length >= 2 ? bound.placed.together : undefined;
  // Sizes of at most ORDERED_UNITS slots, base 8, above the cover's 32 bits.
  let code = 0;
  for (const size of together ?? []) code = code * 8 + size;
  return { cover, together, key: code * 2 ** 32 + cover };
}

function coverOfUnits(units: number, named: number): number {
  return named * 2 ** 24 + units * 2 ** 16 + units * 2 ** 8 + units;
}

/**
 * The food's score can be no better (lower) than its static part less this bonus bound, less
 * the most its name's placements give placed slots, plus the other slots' best parts and the
 * placed ones' largest offsets (`pageReading`).
 */
function staticBound(rid: number, ranks: FoodRanks, key: OrderKey): number {
  const shape = ranks.shape[rid]!;
  const bound = ranks.staticPart[rid]! - coverageBonus(key.cover, shape);
  return key.together === undefined ? bound : bound - placementMost(shape, key.together);
}

const [HEAD, HEAD_SEGMENT, SECOND_SEGMENT, LATER_SEGMENT, OUTSIDE_NAME] = WEIGHTS.placement;

/**
 * The most placement weight `together` groups of slots (largest first; a group's slots take
 * one word) can take from a food of this shape (ranking.ts packShape): the name's placements,
 * best first, to the largest groups, a word to a group. Counted from the shape, never fewer or
 * worse than the name has: the head (two heads when the second segment counts no word: a
 * class's food, `Cheese, cheddar`, has its kind at the head too, build.ts), the rest of the
 * first segment, the second segment's words, the name's other words, then a field outside it.
 */
export function placementMost(shape: number, together: readonly number[]): number {
  const first = shape & 255;
  const second = (shape >>> 8) & 255;
  const words = shape >>> 24;
  // Of each placement, how many words the name has at most.
  const heads = first === 0 ? 0 : second === 0 ? 2 : 1;
  const headSegment = Math.max(0, first - 1);
  const later = Math.max(0, words - first - second);
  let most = 0;
  for (let g = 0; g < together.length; g++) {
    const weight = g < heads ? HEAD : g < heads + headSegment ? HEAD_SEGMENT : g < heads + headSegment + second ? SECOND_SEGMENT
      : g < heads + headSegment + second + later ? LATER_SEGMENT : OUTSIDE_NAME;
    most += together[g]! * weight;
  }
  return most;
}

/**
 * Foods in order of their bound: the foods of bound `bounds[b]` are `rids[starts[b]] … rids[starts[b + 1]]`, in rid order.
 * `rest`, when set, is the first bound the order leaves out (`boundOrderMax`): every food of a
 * lower bound is in it, none of that bound or higher.
 */
export interface BoundOrder {
  readonly rids: Uint32Array;
  readonly starts: Uint32Array;
  readonly bounds: Int32Array;
  readonly rest?: number;
  /** Every food's bound by rid, in a catalogue's order (`boundOrder`) whose bounds span fewer than 255. */
  readonly byRid?: RidBounds;
}

/** A food's bound is `least + steps[rid]` (255 for a rid without a food): one byte read instead of working it out. */
interface RidBounds {
  readonly least: number;
  readonly steps: Uint8Array;
}

/** Bound orders per ranks and order key (`orderKey`). */
const orders = new WeakMap<FoodRanks, Map<number, BoundOrder>>();
const ORDERED_UNITS = 4;
const ALL_UNITS = 255;

/**
 * The foods' rids in order of `staticBound` for queries of `bound.units` slots (of which
 * `bound.named` may count for the name), best first (a counting sort: bounds are whole
 * numbers), as far as `boundOrderMax()` foods (whole bounds, at least one), and every food's
 * bound by rid in a byte (`byRid`). Made once per catalogue version and bound, 4 bytes a food
 * it holds and 1 a rid; queries of more than ORDERED_UNITS slots share the order of the
 * loosest bound. A bound looser than the query's stays correct but reads further: a type-ahead
 * word's completions, read with its name's bonus counted, made `fat co*` read ~4 times the foods.
 */
export function boundOrder(ranks: FoodRanks, most: CoverBound): BoundOrder {
  return finished(boundOrderSteps(ranks, most, Infinity));
}

/**
 * Rids a step of `boundOrderSteps` goes through: ~0.8 ms of a bound's work at 1,000,000 foods
 * on a slow VM (~100 ns a food), so that a server making its orders once it listens
 * (engine.ts `orderSteps`) keeps turns of about a millisecond.
 */
export const ORDER_STEP_RIDS = 8192;

/**
 * `boundOrder` made in steps of `step` rids (Infinity: in one), yielding between them; returns
 * the order, which is then kept (or the one a search made meanwhile, the same).
 */
export function* boundOrderSteps(ranks: FoodRanks, most: CoverBound, step = ORDER_STEP_RIDS): Generator<void, BoundOrder, void> {
  const key = orderKey(most);
  let byKey = orders.get(ranks);
  if (byKey === undefined) orders.set(ranks, (byKey = new Map<number, BoundOrder>()));
  const made = byKey.get(key.key);
  if (made !== undefined) return made;
  const n = ranks.place.length;
  let foods = 0;
  for (const [from, to] of ranges(n, step)) {
    for (let rid = from; rid < to; rid++) if (ranks.place[rid] !== NO_PLACE) foods++;
    yield;
  }
  const rids = new Uint32Array(foods);
  const bound = new Int32Array(foods);
  let k = 0;
  for (const [from, to] of ranges(n, step)) {
    for (let rid = from; rid < to; rid++) {
      if (ranks.place[rid] === NO_PLACE) continue;
      rids[k] = rid;
      bound[k++] = staticBound(rid, ranks, key);
    }
    yield;
  }
  const range = yield* boundRangeSteps(bound, step);
  const order = { ...(yield* byBoundSteps(rids, bound, boundOrderMax(), step, range)), ...(yield* ridBoundsSteps(rids, bound, n, step, range)) };
  const meanwhile = byKey.get(key.key);
  if (meanwhile !== undefined) return meanwhile;
  byKey.set(key.key, order);
  return order;
}

/** A generator run to its end at once: its value. */
export function finished<T>(steps: Generator<void, T, void>): T {
  for (;;) {
    const next = steps.next();
    if (next.done === true) return next.value;
  }
}

/** [from, to) ranges of `step` (one when `step` is Infinity) over 0…n. */
function* ranges(n: number, step: number): Generator<readonly [number, number], void, void> {
  for (let from = 0; from < n; from += step) yield [from, Math.min(n, from + step)];
}

/**
 * The order's `byRid`, when its bounds span fewer than 255 (~130 at 1,000,000 foods). Read for
 * the foods a page goes on with past the order (`candidatesByBound`, `matchesByBound`) instead
 * of each one's static part, shape and coverage bonus: in process at 1,000,000 foods
 * (bench/engine-ab.ts, 3,000 queries, two runs), type-ahead after words 5 % less a new query
 * and 6-9 % a query asked again, p90 10-18 % less; fts cold 6 % and 1 %; a corrected word +4 %
 * (its maximum halved) and -9 %.
 */
function* ridBoundsSteps(rids: Uint32Array, bound: Int32Array, ridLimit: number, step: number, range: BoundRange): Generator<void, { byRid?: RidBounds }, void> {
  const { least, most } = range;
  if (!(most - least < 255)) return {};
  const steps = new Uint8Array(ridLimit).fill(255);
  for (const [from, to] of ranges(rids.length, step)) {
    for (let k = from; k < to; k++) steps[rids[k]!] = bound[k]! - least;
    yield;
  }
  return { byRid: { least, steps } };
}

/** The catalogue's bound order for these slots when it has been made (`boundOrder` makes it). */
function madeOrder(ranks: FoodRanks, most: CoverBound): BoundOrder | undefined {
  return orders.get(ranks)?.get(orderKey(most).key);
}

/**
 * The first `depth` foods having every slot, in full order, and how many there are, when every
 * slot has a bitmap. `units` is the most coverage a food can take from the slots in one byte
 * (ranking.ts coverOf: one per slot of one term). Counting is a pass of ANDs over the bitmaps,
 * which also collects the matches while they are at most `scoreAllMax`, and the name tier
 * (every slot in the name) while it is: those are then scored all (the name tier alone when it
 * fills the page). Otherwise foods are read in `boundOrder`: a food not yet read scores no
 * better than its bound plus the slots' best parts, so once the page is full and its worst
 * food beats that (and is of the name tier, or the whole name tier has been read), the page is
 * final. When the name tier alone fills the page, only its foods are read. When that order
 * would be read far (the page's foods have poor bounds), the foods left to read are collected
 * from the bitmaps and put in bound order instead (`matchesByBound`).
 */
export function boundFirstPage(slots: readonly UnionSlot[], most: CoverBound, depth: number, ranks: FoodRanks, scoreAllMax: number): { rids: number[]; total: number } {
  const ridLimit = ranks.place.length;
  const maps = slots.map((slot, i) => slotBitmaps(slot, ridLimit, i));
  const bits = maps.map((m) => m.bits);
  const names = maps.map((m) => m.names);
  const prepared = slots.map((slot) => prepare(slot, ridLimit));
  // The matches and the name tier are collected in the counting pass while at most
  // collectMax(): the page's candidates then need no second pass over the bitmaps. The matches
  // only when they are likely that few: collecting past the cap is work thrown away.
  const candidateCap = Math.max(scoreAllMax, depth, collectMax());
  const cap = expectedMatches(slots, ridLimit) <= candidateCap / 2 ? candidateCap : scoreAllMax;
  const counted = countBitmaps(bits, names, cap, candidateCap);
  const total = counted.total;
  const named = counted.namedCount;
  const top = new TopFoods(depth, ranks.place);
  if (total === 0 || depth === 0) return { rids: [], total };
  // With the name tier as large as the page, only its foods can enter it.
  const fromNames = named >= depth;
  const candidates = fromNames ? counted.named : counted.rids;
  if (candidates !== undefined && candidates.length <= scoreAllMax) {
    scoreCandidates(prepared, candidates, top, ranks);
    return { rids: top.sorted(), total };
  }
  const test = (fromNames ? names : bits).slice();
  const page = pageReading(top, prepared, ranks, named, most);
  const order = boundOrder(ranks, most);
  // The catalogue's order is read only while that has cost less than sorting the foods to read
  // by bound would (ski rental: never more than twice the cheaper of the two); then the rest
  // are sorted, from those collected or from the bitmaps. Past its cap, the name tier's size is
  // not known: the matches bound it.
  const toRead = candidates?.length ?? (fromNames && named <= candidateCap ? named : total);
  const budget = toRead * (candidates === undefined ? COLLECT_COST : SORT_COST) + test[0]!.length / 4;
  const sorted = test.slice().sort((x, y) => density(x) - density(y));
  const from = readInOrder(page, order, sorted, budget);
  if (from !== undefined) {
    readInOrder(page, candidates === undefined ? matchesByBound(test, ranks, most, from, order.byRid) : candidatesByBound(candidates, ranks, most, from, order.byRid), [], Infinity);
  }
  return { rids: top.sorted(), total };
}

/**
 * The page when the foods that can enter it are known, at most collectMax(): `candidates`
 * (rids ascending, each in every slot), the name tier when `named` (its size) is at least
 * `depth`, else every match. They are read best bound first until the page is final. No
 * bitmap of a slot is made or read: the plain words' foods in common were found by driving
 * the sparsest one (early-top.ts matchingFoods).
 */
export function candidatesPage(slots: readonly UnionSlot[], candidates: Uint32Array, named: number, most: CoverBound, depth: number, ranks: FoodRanks): number[] {
  const ridLimit = ranks.place.length;
  const top = new TopFoods(depth, ranks.place);
  const page = pageReading(top, slots.map((slot) => prepare(slot, ridLimit)), ranks, named, most);
  readInOrder(page, candidatesByBound(candidates, ranks, most, -Infinity, madeOrder(ranks, most)?.byRid), [], Infinity);
  return top.sorted();
}

/**
 * Up to this many foods that can enter a page (default 16,384; FOODLOOKUP_COLLECT_MAX, which
 * tests lower) are collected as they are counted and read best bound first, rather than found
 * in the catalogue's bound order. At 1,000,000 foods 'cooked white' (12,737 matches, 2,685 in
 * the name tier) passed over ~110,000 foods of that order before collecting its matches in a
 * second pass over the bitmaps. In process (the bench's queries), 16,384 took 4-14 % less than
 * 65,536, whose collecting and name-tier counting cost more than the reading they spared;
 * 8,192 and 32,768 measured alike.
 */
export function collectMax(): number {
  return envInteger('FOODLOOKUP_COLLECT_MAX', 0, 16_384);
}

/**
 * The most foods a catalogue's bound order holds (default 131,072; FOODLOOKUP_BOUND_ORDER_MAX,
 * which tests lower): a page read past them goes on from the foods collected (`matchesByBound`,
 * `candidatesByBound`), as one read past its budget does. At 1,000,000 foods the bench's
 * searches that read an order (scenarios 2, 12 and 13, 4,000 queries each) stopped within its
 * first 106,191 foods, 8 of them past 65,536, since placed slots are bounded by a food's
 * placements (`placementMost`; before, 98 past 65,536, 17 past 131,072, the furthest at 185,833
 * when all orders held 262,144). Each of the five orders a server makes (engine.ts `warm`)
 * holds 0.5 MiB of rids, and its bounds by rid (`byRid`) 1 MiB. Cut from whole (4 MiB of rids
 * each) to 262,144 foods, three orders held 8.7 MiB less after warm-up; from 262,144 to
 * 131,072, the answers and the time in process stayed the same (bench/engine-ab.ts,
 * scenario 12, two rounds).
 */
export function boundOrderMax(): number {
  return envInteger('FOODLOOKUP_BOUND_ORDER_MAX', 1, 131_072);
}

/** How many foods the slots would have in common were their foods independent: whether collecting the matches is likely to pay. */
function expectedMatches(slots: readonly UnionSlot[], ridLimit: number): number {
  let expected = ridLimit;
  for (const slot of slots) {
    let foods = 0;
    for (const part of slot) foods += part.list.rids.length;
    expected *= Math.min(1, foods / ridLimit);
  }
  return expected;
}

function pageReading(top: TopFoods, prepared: readonly Prepared[], ranks: FoodRanks, named: number, most: CoverBound): PageReading {
  // A placed slot's placement is in the order's bounds (`staticBound`), its offset here.
  const placed = orderKey(most).together === undefined ? undefined : most.placed?.mostOffset;
  let best = 0;
  for (let i = 0; i < prepared.length; i++) {
    const offset = placed?.[i];
    best += offset === undefined ? prepared[i]!.bestPart : -offset;
  }
  return { top, prepared, entries: new Float64Array(prepared.length), ranks, best, named, namedRead: 0 };
}

/** What reading foods into a page needs, and how many of the name tier it has read. */
interface PageReading {
  readonly top: TopFoods;
  readonly prepared: readonly Prepared[];
  readonly entries: Float64Array;
  readonly ranks: FoodRanks;
  /** The slots' best parts summed. */
  readonly best: number;
  /** The name tier's size (or a number as large as the page, see `boundFirstPage`). */
  readonly named: number;
  namedRead: number;
}

/**
 * Collecting a food to read (a set bit found, its bound, a counting sort) costs about this many
 * times as much as passing over one in `boundOrder` (a bit test). At 1,000,000 foods, 'foods
 * cheese fat' (2,048 matches, few in the name tier) read that order nearly to its end, ~4 ms;
 * 'lean with' (36,472) finishes early in it (~0.7 ms) and collected took ~1.3 ms.
 */
const COLLECT_COST = 8;
/** Putting a food already collected in bound order (its bound, a counting sort) costs about this many bit tests. */
const SORT_COST = 3;

/**
 * Reads foods in `order`, bound by bound (in rid order within one), and scores into the page
 * each that is in every `test` bitmap, until the page is final or, at the start of a bound,
 * `budget` foods have been passed over. Returns the bound from which foods are left to read
 * (where it stopped, or the order's `rest`), or undefined when the page is final or none are
 * left. The page is checked for being final before each bound and whenever a food enters it
 * (reading each food's bound again was a cache miss a food).
 */
function readInOrder(page: PageReading, order: BoundOrder, test: readonly Uint32Array[], budget: number): number | undefined {
  const { rids: ordered, starts, bounds } = order;
  const { top, prepared, entries, ranks, named, best } = page;
  let namedRead = page.namedRead;
  let b = 0;
  scan: for (; b < bounds.length; b++) {
    const least = best + bounds[b]!;
    if (isFinal(top, named, namedRead, least) || starts[b]! > budget) break;
    outer: for (let k = starts[b]!; k < starts[b + 1]!; k++) {
      const rid = ordered[k]!;
      const w = rid >>> 5;
      const bit = 1 << (rid & 31);
      for (let s = 0; s < test.length; s++) if ((test[s]![w]! & bit) === 0) continue outer;
      for (let s = 0; s < prepared.length; s++) entries[s] = entryOf(prepared[s]!, rid, false);
      namedRead += scoreEntries(top, rid, entries, ranks);
      if (isFinal(top, named, namedRead, least)) {
        b = bounds.length;
        break scan;
      }
    }
  }
  page.namedRead = namedRead;
  const from = b < bounds.length ? bounds[b]! : order.rest;
  return from === undefined || isFinal(top, named, namedRead, best + from) ? undefined : from;
}

/** Reused for the foods `matchesByBound` collects. */
let foundScratch = new Uint32Array(1024);
let boundScratch = new Int32Array(1024);

/**
 * The foods in every `test` bitmap whose bound is `from` or more, as a `BoundOrder`: a pass of
 * ANDs, each match's bound (read from `byRid` when given), then a counting sort.
 */
function matchesByBound(test: readonly Uint32Array[], ranks: FoodRanks, most: CoverBound, from: number, byRid?: RidBounds): BoundOrder {
  // The same bound as `boundOrder`'s for these slots.
  const key = orderKey(most);
  const least = byRid?.least ?? 0;
  const steps = byRid?.steps;
  let n = 0;
  const first = test[0]!;
  for (let w = 0; w < first.length; w++) {
    let x = first[w]!;
    for (let s = 1; s < test.length && x !== 0; s++) x &= test[s]![w]!;
    for (; x !== 0; x &= x - 1) {
      const rid = (w << 5) | (31 - Math.clz32(x & -x));
      const b = steps === undefined ? staticBound(rid, ranks, key) : least + steps[rid]!;
      if (b < from) continue;
      if (n === foundScratch.length) {
        foundScratch = grown(foundScratch, new Uint32Array(2 * n));
        boundScratch = grown(boundScratch, new Int32Array(2 * n));
      }
      foundScratch[n] = rid;
      boundScratch[n++] = b;
    }
  }
  return byBound(foundScratch.subarray(0, n), boundScratch.subarray(0, n));
}

/** The `candidates` (rids ascending) whose bound is `from` or more, as a `BoundOrder` (bounds read from `byRid` when given). */
function candidatesByBound(candidates: Uint32Array, ranks: FoodRanks, most: CoverBound, from: number, byRid?: RidBounds): BoundOrder {
  const key = orderKey(most);
  const least = byRid?.least ?? 0;
  const steps = byRid?.steps;
  if (foundScratch.length < candidates.length) {
    foundScratch = new Uint32Array(candidates.length);
    boundScratch = new Int32Array(candidates.length);
  }
  let n = 0;
  for (let k = 0; k < candidates.length; k++) {
    const rid = candidates[k]!;
    const b = steps === undefined ? staticBound(rid, ranks, key) : least + steps[rid]!;
    if (b < from) continue;
    foundScratch[n] = rid;
    boundScratch[n++] = b;
  }
  return byBound(foundScratch.subarray(0, n), boundScratch.subarray(0, n));
}

function grown<T extends Uint32Array | Int32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/**
 * `rids` (ascending) in order of their `bound`, rid order kept within one (a counting sort:
 * bounds are whole numbers, ~130 of them at 1,000,000 foods).
 */
function byBound(rids: Uint32Array, bound: Int32Array): BoundOrder {
  return finished(byBoundSteps(rids, bound, Infinity, Infinity, finished(boundRangeSteps(bound, Infinity))));
}

/**
 * `byBound`, in steps of `step` foods, from the bounds' `range`: the best bounds' foods, whole
 * bounds while they number at most `most` (at least one bound), and the first bound left out.
 */
function* byBoundSteps(rids: Uint32Array, bound: Int32Array, most: number, step: number, range: BoundRange): Generator<void, BoundOrder, void> {
  const { least: min, most: max } = range;
  const start = new Uint32Array(rids.length === 0 ? 1 : max - min + 2);
  for (const [from, to] of ranges(bound.length, step)) {
    for (let k = from; k < to; k++) start[bound[k]! - min + 1]!++;
    yield;
  }
  for (let b = 1; b < start.length; b++) start[b]! += start[b - 1]!;
  // Each bound's first place, before the fill below moves them on.
  const buckets: number[] = [];
  const starts: number[] = [];
  let rest: number | undefined;
  for (let b = 0; b + 1 < start.length; b++) {
    if (start[b + 1]! > start[b]!) {
      if (buckets.length > 0 && start[b + 1]! > most) {
        rest = b + min;
        break;
      }
      buckets.push(b + min);
      starts.push(start[b]!);
    }
  }
  const held = rest === undefined ? rids.length : start[rest - min]!;
  starts.push(held);
  const ordered = new Uint32Array(held);
  for (const [from, to] of ranges(rids.length, step)) {
    for (let k = from; k < to; k++) {
      const at = bound[k]! - min;
      if (start[at]! < held) ordered[start[at]!++] = rids[k]!;
    }
    yield;
  }
  return { rids: ordered, starts: Uint32Array.from(starts), bounds: Int32Array.from(buckets), ...(rest === undefined ? {} : { rest }) };
}

interface BoundRange {
  readonly least: number;
  readonly most: number;
}

/** The least and most of `bound` (Infinity and -Infinity when it is empty), in steps of `step`. */
function* boundRangeSteps(bound: Int32Array, step: number): Generator<void, BoundRange, void> {
  let least = Infinity;
  let most = -Infinity;
  for (const [from, to] of ranges(bound.length, step)) {
    for (let k = from; k < to; k++) {
      const b = bound[k]!;
      if (b < least) least = b;
      if (b > most) most = b;
    }
    yield;
  }
  return { least, most };
}

/**
 * Whether no food not yet read can enter the page: it is full, every food left scores `least`
 * or worse, and its worst food is of the name tier or the whole name tier has been read.
 */
function isFinal(top: TopFoods, named: number, namedRead: number, least: number): boolean {
  return top.full && (top.worstTier === 1 || namedRead === named) && top.worstScore < least;
}

/** Set bits in a sample of a bitmap's words: which of several bitmaps to test first. */
function density(bits: Uint32Array): number {
  let count = 0;
  for (let w = 0; w < bits.length; w += 61) count += popcount32(bits[w]!);
  return count;
}
