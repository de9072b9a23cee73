import { fold } from '../domain/text.js';
import type { FoodQuery } from '../store/catalog-store.js';
import type { FoodTest } from './word-search.js';

/**
 * Name-ordered lists and prefix search (autocomplete) in memory, from the places the importer
 * numbers foods by, in (name_key, id) order.
 *
 * A list without a query is every place in order: a page at offset 500,000 is read off the
 * array instead of walking half the name index. The foods whose name_key begins with a key are
 * one run of places, found with two index seeks; its length is `total`. Within that run, the
 * contract's order (a name equal to the query first, then shorter names, then name order) is
 * (name length, place): a name of the key's length that begins with the key is the key. So a
 * page is picked with a histogram of name lengths over the run, without sorting it; the
 * general query sorts every name of the run (~10^5 for two letters at 1,000,000 foods).
 * Filters the postings test in memory apply to every place visited.
 */

/** Ranked prefix pages reaching deeper than this take the general query: the picked set grows with the page. */
export const MAX_PREFIX_DEPTH = 1000;

/** Foods in name order, as the prefix search reads them. */
export interface NamePlaces {
  /** The rid at each place. */
  readonly byPlace: Uint32Array;
  /** The folded name's length in characters (SQLite's `length(name_key)`), at each place. */
  readonly nameLength: ArrayLike<number>;
  /** The longest name_key, in characters. */
  readonly maxLength: number;
}

export interface PrefixRun {
  /** The names in place order. */
  names(): NamePlaces;
  /** The place of the first food whose folded name is `>= key` (the food count when none is). */
  firstPlaceFrom(key: string): number;
  /** The filters as a test on a food's rid. */
  test(query: FoodQuery): FoodTest;
}

/** The largest code point: `key < prefix + MAX_CHAR` bounds a prefix range. */
const MAX_CHAR = String.fromCodePoint(0x10ffff);

/** The page's rids and the total, or undefined when the query needs the store's own query (grouping, deep ranked prefix pages). */
export function nameOrderPage(q: FoodQuery, run: PrefixRun): { rids: number[]; total: number } | undefined {
  const prefix = q.match?.type === 'prefix' ? fold(q.match.query) : undefined;
  if ((q.match !== undefined && prefix === undefined) || q.grouping) return undefined;
  const names = run.names();
  const depth = q.offset + q.limit;
  const ranked = prefix !== undefined && q.order.field === 'rank';
  if (ranked && depth > MAX_PREFIX_DEPTH) return undefined;
  const accept = run.test(q);
  const [from, to] = prefix !== undefined ? [run.firstPlaceFrom(prefix), run.firstPlaceFrom(prefix + MAX_CHAR)] : [0, names.byPlace.length];
  const descending = q.order.direction === 'desc';
  // Without a query there is nothing to rank by: the general query orders by name too.
  if (!ranked) return inNameOrder(names, from, to, accept, q.offset, depth, descending);
  return inRankOrder(names, from, to, accept, q.offset, depth, descending);
}

/**
 * Every food a prefix query matches that passes the filters, in its food order ascending: by
 * (name length, place) when it is ranked, by place otherwise. What a grouped prefix list groups
 * (store/grouping.ts); the general query numbered every match with window functions, ~1.1-1.5 s
 * for `c` (161,643 foods) at 1,000,000 foods on a slow VM.
 */
export function prefixMatches(q: FoodQuery, run: PrefixRun): number[] {
  const prefix = q.match?.type === 'prefix' ? fold(q.match.query) : '';
  const { byPlace, nameLength, maxLength } = run.names();
  const accept = run.test(q);
  const from = run.firstPlaceFrom(prefix);
  const to = run.firstPlaceFrom(prefix + MAX_CHAR);
  if (q.order.field !== 'rank') {
    const out: number[] = [];
    for (let p = from; p < to; p++) if (accept === undefined || accept(byPlace[p]!)) out.push(byPlace[p]!);
    return out;
  }
  // A counting sort by name length; places ascend within each length.
  const start = new Uint32Array(maxLength + 2);
  for (let p = from; p < to; p++) if (accept === undefined || accept(byPlace[p]!)) start[nameLength[p]! + 1]!++;
  for (let length = 0; length <= maxLength; length++) start[length + 1]! += start[length]!;
  const out = new Array<number>(start[maxLength + 1]!);
  for (let p = from; p < to; p++) if (accept === undefined || accept(byPlace[p]!)) out[start[nameLength[p]!]!++] = byPlace[p]!;
  return out;
}

/**
 * A page of the foods the store named (a barcode lookup's handful, from its index) in name
 * order, as the general query orders a list without a query or grouping: those that pass the
 * filters, by place, descending when asked.
 */
export function listedInNameOrder(q: FoodQuery, listed: Iterable<number>, place: ArrayLike<number>, accept: FoodTest): { rids: number[]; total: number } {
  const kept = [...new Set(listed)].filter((rid) => accept === undefined || accept(rid));
  kept.sort((a, b) => place[a]! - place[b]!);
  if (q.order.direction === 'desc') kept.reverse();
  return { rids: kept.slice(q.offset, q.offset + q.limit), total: kept.length };
}

/**
 * Rids in name order: many of them picked out of every place in order, fewer by their places
 * sorted natively and turned back into rids (`byPlace`). `and`'s 603,581 matches at 1,000,000
 * foods took 430-730 ms with a comparator of places on a slow VM, 66-130 ms so sorted.
 */
export function inPlaceOrder(rids: ArrayLike<number>, place: ArrayLike<number>, byPlace: ArrayLike<number>): number[] {
  if (rids.length * 16 >= byPlace.length) {
    const member = new Uint8Array(place.length);
    for (let i = 0; i < rids.length; i++) member[rids[i]!] = 1;
    const out: number[] = [];
    for (let p = 0; p < byPlace.length; p++) if (member[byPlace[p]!] === 1) out.push(byPlace[p]!);
    return out;
  }
  const places = new Uint32Array(rids.length);
  for (let i = 0; i < rids.length; i++) places[i] = place[rids[i]!]!;
  places.sort();
  return Array.from(places, (p) => byPlace[p]!);
}

/** Name order is place order: the page is read off the run (filtered, every place is tested). */
function inNameOrder(
  names: NamePlaces, from: number, to: number, accept: FoodTest | undefined, offset: number, depth: number, descending: boolean,
): { rids: number[]; total: number } {
  const step = descending ? -1 : 1;
  const first = descending ? to - 1 : from;
  if (accept === undefined) {
    const rids: number[] = [];
    for (let i = offset; i < depth && i < to - from; i++) rids.push(names.byPlace[first + i * step]!);
    return { rids, total: to - from };
  }
  const rids: number[] = [];
  let total = 0;
  for (let i = 0, p = first; i < to - from; i++, p += step) {
    const rid = names.byPlace[p]!;
    if (!accept(rid)) continue;
    if (total >= offset && total < depth) rids.push(rid);
    total++;
  }
  return { rids, total };
}

/**
 * (length, place) order over the run: a histogram of the accepted names' lengths gives the
 * length at which the page ends; the foods shorter than that, and those of that length in
 * place order until the page is full, are the page's, sorted by (length, place).
 */
function inRankOrder(
  names: NamePlaces, from: number, to: number, accept: FoodTest | undefined, offset: number, depth: number, descending: boolean,
): { rids: number[]; total: number } {
  const { byPlace, nameLength, maxLength } = names;
  const counts = new Uint32Array(maxLength + 1);
  let total = 0;
  for (let p = from; p < to; p++) {
    if (accept !== undefined && !accept(byPlace[p]!)) continue;
    counts[nameLength[p]!]!++;
    total++;
  }
  if (offset >= total) return { rids: [], total };
  // Lengths in page order: ascending, or all reversed for `desc` (contract C3).
  const step = descending ? -1 : 1;
  let cut = descending ? maxLength : 0;
  let before = 0;
  while (before + counts[cut]! < depth && cut + step >= 0 && cut + step <= maxLength) {
    before += counts[cut]!;
    cut += step;
  }
  const ahead = (length: number): boolean => (descending ? length > cut : length < cut);
  // Places of the page's foods, grouped by length, each group in page order.
  const picked: number[] = [];
  let atCut = depth - before;
  const first = descending ? to - 1 : from;
  for (let i = 0, p = first; i < to - from; i++, p += step) {
    const length = nameLength[p]!;
    if (!ahead(length) && (length !== cut || atCut === 0)) continue;
    if (accept !== undefined && !accept(byPlace[p]!)) continue;
    if (length === cut) atCut--;
    picked.push(p);
  }
  // Stable: within a length, places stay in page order.
  picked.sort((a, b) => (nameLength[a]! - nameLength[b]!) * step);
  return { rids: picked.slice(offset, depth).map((p) => byPlace[p]!), total };
}
