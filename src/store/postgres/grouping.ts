import type { FoodQuery } from '../catalog-store.js';

/**
 * `grouping=brand|classification` answered from memory: the same page as the lists' SQL
 * (list-queries.ts foodsQuery), without sending every match through PostgreSQL. There, a
 * grouped list over all foods numbers a million rows with window functions per request; here
 * it is two passes over the matches in food order, one counting each group's foods, one
 * collecting the page's.
 *
 * The SQL's order, which this keeps: foods numbered in the query's food order (`pos`); groups
 * ordered by their best food (`grouping-order=rank` with an fts query) or by (folded name,
 * key), either way reversed for `desc`; within a group, foods by `pos`; the first
 * `grouping-limit` of each group kept; `total` counts the kept foods.
 */

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
 * The page of a grouped query. `foods` visits the matches in food order (filters applied);
 * `ranked` says whether groups may be ordered by their best food (an fts query).
 */
export function groupedPage(
  q: FoodQuery & { readonly grouping: NonNullable<FoodQuery['grouping']> },
  foods: (visit: (rid: number) => void) => void,
  groups: Groups,
  ranked: boolean,
): { rids: number[]; total: number } {
  const keep = q.grouping.limit ?? Number.POSITIVE_INFINITY;
  const counts = new Uint32Array(groups.size);
  // Groups in order of their first (best) food.
  const byBest: number[] = [];
  foods((rid) => {
    const group = groups.of[rid]!;
    const before = counts[group]!;
    counts[group] = before + 1;
    if (before === 0) byBest.push(group);
  });
  let order: ArrayLike<number> = ranked && q.grouping.order.field === 'rank' ? byBest : groups.inNameOrder;
  if (q.grouping.order.direction === 'desc') order = Array.from(order).reverse();
  // The page's groups, and how many of each group's kept foods come before the page.
  const from = q.offset;
  const to = q.offset + q.limit;
  const wanted = new Map<number, { skip: number; take: number; rids: number[] }>();
  const pageGroups: number[] = [];
  let total = 0;
  for (let i = 0; i < order.length; i++) {
    const group = order[i]!;
    const kept = Math.min(counts[group]!, keep);
    if (kept === 0) continue;
    const start = Math.max(from, total);
    const end = Math.min(to, total + kept);
    if (start < end) {
      wanted.set(group, { skip: start - total, take: end - start, rids: [] });
      pageGroups.push(group);
    }
    total += kept;
  }
  if (wanted.size > 0) {
    let open = wanted.size;
    const seen = new Uint32Array(groups.size);
    foods((rid) => {
      if (open === 0) return;
      const group = groups.of[rid]!;
      const page = wanted.get(group);
      if (page === undefined) return;
      const at = seen[group]!;
      seen[group] = at + 1;
      if (at < page.skip || at >= page.skip + page.take) return;
      page.rids.push(rid);
      if (page.rids.length === page.take) open--;
    });
  }
  return { rids: pageGroups.flatMap((group) => wanted.get(group)!.rids), total };
}
