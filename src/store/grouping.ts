import type { FoodQuery } from './catalog-store.js';
import type { SearchEngine, StoreLookups } from '../search/engine.js';
import { compareCodePoints } from '../domain/text.js';
import { sortedInSteps } from './turns.js';

/**
 * `grouping=brand|classification` answered from memory, by both stores: the same page as the
 * lists' SQL (list-queries.ts foodsQuery), which numbers every match with window functions per
 * request (at 1,000,000 foods on a slow VM, SQLite took 9.1 s for `grouping=brand` alone and
 * 4.9 s for `query=and&grouping=classification`, its event loop blocked throughout). Here it is
 * two passes over the matches in food order, one counting each group's foods, one collecting
 * the page's.
 *
 * The SQL's order, which this keeps: foods numbered in the query's food order (`pos`); groups
 * ordered by their best food (`grouping-order=rank` with a query) or by (folded name,
 * key), either way reversed for `desc`; within a group, foods by `pos`; the first
 * `grouping-limit` of each group kept; `total` counts the kept foods.
 */

/** A grouped query. */
export type GroupedQuery = FoodQuery & { readonly grouping: NonNullable<FoodQuery['grouping']> };

/** The groups of one kind in a catalogue version. */
export interface Groups {
  /** The group of each food, by rid. */
  readonly of: ArrayLike<number>;
  /** Every group in (folded name, key) order. */
  readonly inNameOrder: ArrayLike<number>;
  /** One more than the largest group number. */
  readonly size: number;
}

/**
 * The groups of grouping=classification, as a store reads its foods' rows: each classification
 * numbered as it first passes (`add`), then the distinct ones put in (folded, raw) order by code
 * point, the order of UTF-8 bytes (SQLite's BINARY collation, PostgreSQL's COLLATE "C"), in
 * steps for `inTurns` (`ordered`): at 1,000,000 foods the generated catalogue has 324,423.
 */
export class ClassificationNumbering {
  private readonly of: Uint32Array;
  private readonly numbers = new Map<string, number>();
  private readonly folds: string[] = [];

  constructor(ridLimit: number) {
    this.of = new Uint32Array(ridLimit);
  }

  add(rid: number, fold: string, raw: string): void {
    let group = this.numbers.get(raw);
    if (group === undefined) {
      this.numbers.set(raw, (group = this.folds.length));
      this.folds.push(fold);
    }
    this.of[rid] = group;
  }

  *ordered(): Generator<void, Groups, void> {
    const { of, folds } = this;
    const raws = [...this.numbers.keys()];
    this.numbers.clear();
    const sorted = yield* sortedInSteps(folds.length, (a, b) => compareCodePoints(folds[a]!, folds[b]!) || compareCodePoints(raws[a]!, raws[b]!));
    const place = new Uint32Array(folds.length);
    sorted.forEach((g, i) => (place[g] = i));
    for (let rid = 0; rid < of.length; rid++) of[rid] = place[of[rid]!]!;
    return { of, inNameOrder: Uint32Array.from({ length: folds.length }, (_, i) => i), size: folds.length };
  }
}

/**
 * The page of a grouped query. `matches` are the matches in food order (filters applied), read
 * backwards when `descending`; `ranked` says whether groups may be ordered by their best food
 * (a query's).
 */
export function groupedPage(
  q: GroupedQuery,
  matches: ArrayLike<number>,
  descending: boolean,
  groups: Groups,
  ranked: boolean,
): { rids: number[]; total: number } {
  const keep = q.grouping.limit ?? Number.POSITIVE_INFINITY;
  const of = groups.of;
  const n = matches.length;
  const first = descending ? n - 1 : 0;
  const step = descending ? -1 : 1;
  const counts = new Uint32Array(groups.size);
  // Groups in order of their first (best) food.
  const byBest: number[] = [];
  for (let i = 0, at = first; i < n; i++, at += step) {
    const group = of[matches[at]!]!;
    if (counts[group]!++ === 0) byBest.push(group);
  }
  let order: ArrayLike<number> = ranked && q.grouping.order.field === 'rank' ? byBest : groups.inNameOrder;
  if (q.grouping.order.direction === 'desc') order = Array.from(order).reverse();
  // The page's groups, and how many of each group's kept foods come before the page.
  const from = q.offset;
  const to = q.offset + q.limit;
  // The page's groups, by group number (an array: looked up once per match).
  const slot = new Int32Array(groups.size).fill(-1);
  const pages: { skip: number; take: number; rids: number[] }[] = [];
  let total = 0;
  for (let i = 0; i < order.length; i++) {
    const group = order[i]!;
    const kept = Math.min(counts[group]!, keep);
    if (kept === 0) continue;
    const start = Math.max(from, total);
    const end = Math.min(to, total + kept);
    if (start < end) {
      slot[group] = pages.length;
      pages.push({ skip: start - total, take: end - start, rids: [] });
    }
    total += kept;
  }
  let open = pages.length;
  const seen = new Uint32Array(pages.length);
  for (let i = 0, at = first; i < n && open > 0; i++, at += step) {
    const rid = matches[at]!;
    const k = slot[of[rid]!]!;
    if (k === -1) continue;
    const page = pages[k]!;
    const before = seen[k]!++;
    if (before < page.skip || before >= page.skip + page.take) continue;
    page.rids.push(rid);
    if (page.rids.length === page.take) open--;
  }
  return { rids: pages.flatMap((page) => page.rids), total };
}

/** Every food of each group in name order: group g's are `rids[start[g]] … rids[start[g + 1] - 1]`. */
export interface GroupMembers {
  readonly start: Uint32Array;
  readonly rids: Uint32Array;
}

/** Sorts the foods into their groups, keeping name order within each (a counting sort over the places). */
export function groupMembers(byPlace: ArrayLike<number>, groups: Groups): GroupMembers {
  const start = new Uint32Array(groups.size + 1);
  for (let p = 0; p < byPlace.length; p++) start[groups.of[byPlace[p]!]! + 1]!++;
  for (let g = 0; g < groups.size; g++) start[g + 1]! += start[g]!;
  const next = start.slice(0, groups.size);
  const rids = new Uint32Array(byPlace.length);
  for (let p = 0; p < byPlace.length; p++) {
    const rid = byPlace[p]!;
    const group = groups.of[rid]!;
    rids[next[group]!] = rid;
    next[group]!++;
  }
  return { start, rids };
}

/**
 * The page of a grouped list of every food (no query, no filter): read off each group's
 * members, without visiting the foods of the groups before it.
 */
export function groupedPageOfAll(
  q: GroupedQuery, groups: Groups, members: GroupMembers,
): { rids: number[]; total: number } {
  const keep = q.grouping.limit ?? Number.POSITIVE_INFINITY;
  const descendingGroups = q.grouping.order.direction === 'desc';
  const descendingFoods = q.order.direction === 'desc';
  const from = q.offset;
  const to = q.offset + q.limit;
  const rids: number[] = [];
  let total = 0;
  const n = groups.inNameOrder.length;
  for (let i = 0; i < n; i++) {
    const group = groups.inNameOrder[descendingGroups ? n - 1 - i : i]!;
    const first = members.start[group]!;
    const count = members.start[group + 1]! - first;
    const kept = Math.min(count, keep);
    for (let k = Math.max(from, total); k < Math.min(to, total + kept); k++) {
      const at = k - total;
      rids.push(members.rids[descendingFoods ? first + count - 1 - at : first + at]!);
    }
    total += kept;
  }
  return { rids, total };
}

/**
 * A grouped list: the matches in food order are the places in name order that pass the filters
 * (no query), or the engine's (`ranked`: every match of an fts or prefix query, best first, or
 * in name order when the query orders by name). A list of every food without a filter reads
 * its page off each group's foods in name order (`groupMembers`), kept with the version's lists.
 */
export function groupedMatches(
  q: GroupedQuery, engine: SearchEngine, lookups: StoreLookups, groups: Groups, ranked: readonly number[] | undefined,
): { rids: number[]; total: number } {
  const descending = q.order.direction === 'desc';
  if (ranked !== undefined) return groupedPage(q, ranked, descending, groups, true);
  const { byPlace } = engine.index.names();
  const accept = engine.test(q, lookups);
  if (accept === undefined) {
    // Made once per version and kind, kept with the version's lists (4 MiB at 1,000,000 foods).
    const members = engine.index.kept(`members ${q.grouping.by}`, () => groupMembers(byPlace, groups), (m) => m.rids.byteLength + m.start.byteLength);
    return groupedPageOfAll(q, groups, members);
  }
  const passed = new Uint32Array(byPlace.length);
  let n = 0;
  for (let p = 0; p < byPlace.length; p++) if (accept(byPlace[p]!)) passed[n++] = byPlace[p]!;
  return groupedPage(q, passed.subarray(0, n), descending, groups, false);
}
