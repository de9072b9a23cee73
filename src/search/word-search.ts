import type { SlotPostings } from './postings.js';
import { coverageBonus } from './ranking.js';
import { bitmapOf, rankOf } from './rid-bitmaps.js';
import { GroupSlots } from './group-slots.js';

/**
 * Searches over slot lists (postings.ts), in memory: the foods matching every slot of a query,
 * ranked: name tier (every slot in the name) first, then the score (ranking.ts; lower first
 * here: parts are negated values), then name order. Matches are visited in rid order,
 * intersecting from the shortest list; only the page's depth is kept, in a bounded heap, and
 * `total` is the number of matches.
 */

/** Decides whether a food passes the query's filters (food-filters.ts); undefined: all pass. */
export type FoodTest = ((rid: number) => boolean) | undefined;

/** What ranking knows of every food, by rid (search-index.ts). */
export interface FoodRanks {
  /** Place in name order (name, then id). */
  readonly place: Uint32Array;
  /** Shape of the name (ranking.ts packShape). */
  readonly shape: Uint32Array;
  /** The food's static part, negated as parts are. */
  /** Whole numbers of a few dozen: 2 bytes a food. */
  readonly staticPart: Int16Array;
}

/** The full order: name tier first (1 before 0), then score (lower first), then name place. */
export function ranksBefore(tierA: number, scoreA: number, placeA: number, tierB: number, scoreB: number, placeB: number): boolean {
  if (tierA !== tierB) return tierA > tierB;
  if (scoreA !== scoreB) return scoreA < scoreB;
  return placeA < placeB;
}

/**
 * Matches in the full order (`ranksBefore`): bucketed by (name tier, score), whole numbers of a
 * narrow range (ranking.ts), each bucket's places then sorted natively and turned back into rids
 * (`byPlace`). At 1,000,000 foods on a slow VM, `rankAll` of `and` (603,581 matches) took
 * 1.07 s sorting with `ranksBefore` as the comparator, 0.14-0.18 s so. A score that is not whole, or
 * scores spread over more than MAX_BUCKETS, take the comparator.
 */
export function inRankOrder(rids: ArrayLike<number>, tiers: ArrayLike<number>, scores: ArrayLike<number>, place: ArrayLike<number>, byPlace: ArrayLike<number>): number[] {
  const n = rids.length;
  if (n === 0) return [];
  let lowest = Infinity;
  let highest = -Infinity;
  let whole = true;
  for (let i = 0; i < n; i++) {
    const score = scores[i]!;
    whole &&= Number.isInteger(score);
    if (score < lowest) lowest = score;
    if (score > highest) highest = score;
  }
  const span = highest - lowest + 1;
  if (!whole || 2 * span > MAX_BUCKETS) {
    const order = Array.from({ length: n }, (_, i) => i);
    order.sort((a, b) => (ranksBefore(tiers[a]!, scores[a]!, place[rids[a]!]!, tiers[b]!, scores[b]!, place[rids[b]!]!) ? -1 : 1));
    return order.map((i) => rids[i]!);
  }
  // The name tier (1) first, then lower scores.
  const bucketOf = new Uint32Array(n);
  const start = new Uint32Array(2 * span + 1);
  for (let i = 0; i < n; i++) {
    const bucket = (1 - tiers[i]!) * span + scores[i]! - lowest;
    bucketOf[i] = bucket;
    start[bucket + 1]!++;
  }
  for (let b = 0; b < 2 * span; b++) start[b + 1]! += start[b]!;
  const next = start.slice(0, 2 * span);
  const places = new Uint32Array(n);
  for (let i = 0; i < n; i++) places[next[bucketOf[i]!]!++] = place[rids[i]!]!;
  for (let b = 0; b < 2 * span; b++) if (start[b + 1]! - start[b]! > 1) places.subarray(start[b], start[b + 1]).sort();
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = byPlace[places[i]!]!;
  return out;
}

/** Buckets of (tier, score) `inRankOrder` makes at most: beyond, it sorts with a comparator. */
const MAX_BUCKETS = 1 << 20;

/** A food's score from its parts' sum and coverage sum: every term a whole number, so exact in any order. */
export function finalScore(sum: number, cover: number, rid: number, ranks: FoodRanks): number {
  return sum + ranks.staticPart[rid]! - coverageBonus(cover, ranks.shape[rid]!);
}

/**
 * The first `depth` foods by (tier desc, score asc, name place asc) among matches given one
 * at a time: a bounded heap with the worst kept food at its root.
 */
export class TopFoods {
  private readonly rids: number[] = [];
  private readonly tiers: number[] = [];
  private readonly scores: number[] = [];
  private readonly places: number[] = [];

  constructor(private readonly depth: number, private readonly place: ArrayLike<number>) {}

  /** Whether `depth` foods are kept: then the worst of them is the one a newcomer must beat. */
  get full(): boolean {
    return this.depth > 0 && this.rids.length === this.depth;
  }

  get size(): number {
    return this.rids.length;
  }

  /** Whether a food of this tier scoring at best `score` could enter: a bound that spares computing its score. */
  mayEnter(tier: number, score: number): boolean {
    return this.rids.length < this.depth || ranksBefore(tier, score, -1, this.tiers[0]!, this.scores[0]!, this.places[0]!);
  }

  get worstTier(): number {
    return this.tiers[0]!;
  }

  get worstScore(): number {
    return this.scores[0]!;
  }

  get worstPlace(): number {
    return this.places[0]!;
  }

  /** a ranks after b (is worse). */
  private worse(a: number, b: number): boolean {
    return ranksBefore(this.tiers[b]!, this.scores[b]!, this.places[b]!, this.tiers[a]!, this.scores[a]!, this.places[a]!);
  }

  private swap(i: number, j: number): void {
    const rid = this.rids[i]!;
    const tier = this.tiers[i]!;
    const score = this.scores[i]!;
    const place = this.places[i]!;
    this.rids[i] = this.rids[j]!;
    this.tiers[i] = this.tiers[j]!;
    this.scores[i] = this.scores[j]!;
    this.places[i] = this.places[j]!;
    this.rids[j] = rid;
    this.tiers[j] = tier;
    this.scores[j] = score;
    this.places[j] = place;
  }

  add(rid: number, tier: number, score: number): void {
    if (this.depth === 0) return;
    const place = this.place[rid] ?? 0xffffffff;
    const n = this.rids.length;
    if (n === this.depth) {
      // Not better than the worst kept: nothing to do (the common case once the heap is full).
      if (!ranksBefore(tier, score, place, this.tiers[0]!, this.scores[0]!, this.places[0]!)) return;
      this.rids[0] = rid;
      this.tiers[0] = tier;
      this.scores[0] = score;
      this.places[0] = place;
      this.siftDown(0);
      return;
    }
    this.rids.push(rid);
    this.tiers.push(tier);
    this.scores.push(score);
    this.places.push(place);
    let i = n;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const n = this.rids.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < n && this.worse(l, worst)) worst = l;
      if (r < n && this.worse(r, worst)) worst = r;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }

  /** The kept foods' rids, best first. */
  sorted(): number[] {
    const order = this.rids.map((_, i) => i);
    order.sort((a, b) => (this.worse(a, b) ? 1 : this.worse(b, a) ? -1 : 0));
    return order.map((i) => this.rids[i]!);
  }
}

/** The first index at or after `from` whose rid is >= `rid` (galloping, then binary search). */
export function seek(rids: Uint32Array, from: number, rid: number): number {
  let step = 1;
  let lo = from;
  let hi = from;
  while (hi < rids.length && rids[hi]! < rid) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  return lowerBound(rids, lo, Math.min(hi, rids.length), rid);
}

/** The first index in `lo … hi` whose rid is >= `rid` (binary search; `hi` when none is). */
export function lowerBound(rids: Uint32Array, lo: number, hi: number, rid: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rids[mid]! < rid) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A match's score, `at[i]` its index in `lists[i]`. */
export function matchScore(lists: readonly SlotPostings[], at: readonly number[], rid: number, ranks: FoodRanks): number {
  let sum = 0;
  let cover = 0;
  for (let i = 0; i < lists.length; i++) {
    const list = lists[i]!;
    const kind = list.codes[at[i]!]! >>> 1;
    sum += list.parts[kind]!;
    cover += list.covers[kind]!;
  }
  return finalScore(sum, cover, rid, ranks);
}

/** 1 when every slot is in the match's name (each code's low bit), else 0. */
export function matchTier(lists: readonly SlotPostings[], at: readonly number[]): number {
  let tier = 1;
  for (let i = 0; i < lists.length; i++) tier &= lists[i]!.codes[at[i]!]!;
  return tier;
}

/** The index of the list with the fewest foods: it drives an intersection. */
export function shortestList(lists: readonly SlotPostings[]): number {
  return lists.reduce((best, list, i) => (list.rids.length < lists[best]!.rids.length ? i : best), 0);
}

/**
 * Visits every food in all `lists` that passes `accept`, in rid order; returns how many there
 * were. The shortest list drives; a food of it is tested first in the other lists that have a
 * bitmap (rid-bitmaps.ts: a bit test), then by galloping forward in the others (rids ascend).
 * Rids are below `ridLimit`, the size of a bitmap. With `locate`, `at` holds the food's index
 * in every list when `visit` gets it (a rank in a bitmap's list); without, only counting and
 * collecting callers pay for none of that: `at` then holds the index of the driver and of
 * the lists without a bitmap only.
 */
export function forEachCommonFood(
  lists: readonly SlotPostings[],
  accept: FoodTest,
  ridLimit: number,
  locate: boolean,
  visit: (rid: number, at: readonly number[]) => void,
): number {
  if (lists.length === 0) return 0;
  const driver = shortestList(lists);
  const dense: number[] = [];
  const sparse: number[] = [];
  const bitmaps = lists.map((list, i) => (i === driver ? undefined : bitmapOf(list, ridLimit)));
  lists.forEach((_, i) => {
    if (i !== driver) (bitmaps[i] !== undefined ? dense : sparse).push(i);
  });
  const at = new Array<number>(lists.length).fill(0);
  const drive = lists[driver]!.rids;
  let total = 0;
  outer: for (let d = 0; d < drive.length; d++) {
    const rid = drive[d]!;
    const word = rid >>> 5;
    const bit = 1 << (rid & 31);
    for (let k = 0; k < dense.length; k++) {
      if ((bitmaps[dense[k]!]!.bits[word]! & bit) === 0) continue outer;
    }
    for (let k = 0; k < sparse.length; k++) {
      const i = sparse[k]!;
      const rids = lists[i]!.rids;
      const j = seek(rids, at[i]!, rid);
      at[i] = j;
      if (j === rids.length) break outer;
      if (rids[j] !== rid) continue outer;
    }
    if (accept !== undefined && !accept(rid)) continue;
    at[driver] = d;
    if (locate) {
      for (let k = 0; k < dense.length; k++) at[dense[k]!] = rankOf(bitmaps[dense[k]!]!, rid);
    }
    total++;
    visit(rid, at);
  }
  return total;
}

/**
 * Visits every food in all `lists` that passes `accept` (forEachCommonFood), with its tier (1
 * when every slot is in the name) and its score; returns how many there were.
 */
export function forEachMatch(
  lists: readonly SlotPostings[],
  accept: FoodTest,
  ranks: FoodRanks,
  visit: (rid: number, tier: number, score: number) => void,
): number {
  return forEachCommonFood(lists, accept, ranks.place.length, true, (rid, at) => visit(rid, matchTier(lists, at), matchScore(lists, at, rid, ranks)));
}

/** The first `depth` rids of the full order among the matches, and how many matched. */
export function topMatches(lists: readonly SlotPostings[], accept: FoodTest, depth: number, ranks: FoodRanks): { rids: number[]; total: number } {
  const top = new TopFoods(depth, ranks.place);
  const total = forEachMatch(lists, accept, ranks, (rid, tier, score) => top.add(rid, tier, score));
  return { rids: top.sorted(), total };
}

/**
 * Grouped by brand, groups in the order of their best food, the first `perGroup` foods of
 * each: the page `offset`, `limit` of that flat list, and its length (the grouped query's).
 */
export function groupedByBrand(
  lists: readonly SlotPostings[],
  accept: FoodTest,
  perGroup: number,
  page: { offset: number; limit: number },
  facts: { ranks: FoodRanks; brand: ArrayLike<number>; brandLimit: number },
): { rids: number[]; total: number } {
  const { ranks, brand: brandOf } = facts;
  const places = ranks.place;
  // Each group's best `perGroup` foods, kept sorted in fixed slots: no allocation per match.
  const slots = GroupSlots.take(facts.brandLimit, perGroup);
  const { groupOf } = slots;
  let groups = 0;
  let { count, rids, tiers, scores, places: placesKept } = slots;
  const better = (tier: number, score: number, place: number, slot: number): boolean =>
    ranksBefore(tier, score, place, tiers[slot]!, scores[slot]!, placesKept[slot]!);
  forEachMatch(lists, accept, ranks, (rid, tier, score) => {
    const brand = brandOf[rid]!;
    let g = groupOf[brand]!;
    if (g < 0) {
      g = groups++;
      groupOf[brand] = g;
      if (g === count.length) ({ count, rids, tiers, scores, places: placesKept } = slots.grow(groups));
      count[g] = 0;
    }
    const place = places[rid]!;
    const base = g * perGroup;
    const kept = Math.min(count[g]!, perGroup);
    count[g]!++;
    if (kept === perGroup && !better(tier, score, place, base + kept - 1)) return;
    let i = kept === perGroup ? kept - 1 : kept;
    while (i > 0 && better(tier, score, place, base + i - 1)) {
      rids[base + i] = rids[base + i - 1]!;
      tiers[base + i] = tiers[base + i - 1]!;
      scores[base + i] = scores[base + i - 1]!;
      placesKept[base + i] = placesKept[base + i - 1]!;
      i--;
    }
    rids[base + i] = rid;
    tiers[base + i] = tier;
    scores[base + i] = score;
    placesKept[base + i] = place;
  });
  try {
    return groupsPage(groups, perGroup, page, slots);
  } finally {
    slots.give();
  }
}

/** The page of the groups' flat list, and its length, from `groupedByBrand`'s slots. */
function groupsPage(
  groups: number, perGroup: number, page: { offset: number; limit: number },
  slots: Pick<GroupSlots, 'count' | 'rids' | 'tiers' | 'scores' | 'places'>,
): { rids: number[]; total: number } {
  const { count, rids, tiers, scores, places: placesKept } = slots;
  // The page needs at most `offset + limit` groups (each has a food), in the order of their best
  // food (slot 0 of each); the total needs none in order. A common word has ~20,000 groups: a
  // bounded heap instead of sorting them all.
  const groupPlace = new Uint32Array(groups);
  for (let g = 0; g < groups; g++) groupPlace[g] = placesKept[g * perGroup]!;
  const first = new TopFoods(Math.min(groups, page.offset + page.limit), groupPlace);
  let total = 0;
  for (let g = 0; g < groups; g++) {
    first.add(g, tiers[g * perGroup]!, scores[g * perGroup]!);
    total += Math.min(count[g]!, perGroup);
  }
  const out: number[] = [];
  let at = 0;
  for (const g of first.sorted()) {
    const kept = Math.min(count[g]!, perGroup);
    for (let i = 0; i < kept; i++, at++) {
      if (at >= page.offset && out.length < page.limit) out.push(rids[g * perGroup + i]!);
    }
  }
  return { rids: out, total };
}
