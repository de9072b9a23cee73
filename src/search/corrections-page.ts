import { drivenTop, type SlotPart } from './bound-first.js';
import type { GroupPostings } from './postings.js';
import { ALL_FORMS, type Choice } from './slots.js';
import type { TopList } from './top-lists.js';
import { ranksBefore, seek, type FoodRanks, type TopFoods } from './word-search.js';

/**
 * The first page of a query that is one word corrected to several (`draied`: drained, dried),
 * read from the corrections' stored first pages (top-lists.ts) instead of their union; the same
 * holds for any one word of several groups of forms, each seen whole.
 *
 * A food's entry is its best among the corrections' lists, each seen with its offset, so its
 * score is the one that correction alone gives it. A food outside that correction's stored page
 * ranks after the page's last food under that correction alone: it cannot enter a full page
 * whose last food ranks before the last food of every stored page that is not its group's
 * whole list. The candidates are the pages' foods and every food of a correction too small for
 * a stored page; when the test fails (a deep page, a page of few matches), the caller ranks the
 * union as before.
 *
 * At 1,000,000 foods a misspelt word corrected to two or three words of 25,000-47,000 foods in
 * all took 3-9 ms in process each time it was asked (its union made, every food scored): the
 * slowest of a corrected word's queries.
 */
export interface CorrectionLists {
  postings(group: number): GroupPostings | undefined;
  /** The group's stored first page, when it has one (groups of `topMinFoods()` foods or more). */
  top(group: number): TopList | undefined;
}

/** More candidates than this (a large group without a stored page): the union is ranked instead. */
const MAX_CANDIDATES = 16_384;

/**
 * The first `depth` foods of the slot whose one term has these `choices`, and how many foods it
 * matches; undefined when its choices are not plain corrections (fewer than two, some of their
 * forms, a type-ahead word's partial completions) or the pages cannot tell the page for sure.
 * Each stored page is read as far as `firstReach` foods first (4 × depth; tests read less), then
 * four times as far while that does not tell: what holds for a page's last food holds for any
 * food of it.
 */
export function correctionsPage(choices: readonly Choice[], depth: number, lists: CorrectionLists, ranks: FoodRanks, firstReach = 4 * depth): { rids: number[]; total: number } | undefined {
  if (choices.length < 2 || depth === 0) return undefined;
  const parts: SlotPart[] = [];
  const pages: (TopList | undefined)[] = [];
  for (const choice of choices) {
    if (choice.forms !== ALL_FORMS || choice.partial === true) return undefined;
    const list = lists.postings(choice.group);
    if (list === undefined) return undefined;
    parts.push({ list, offset: choice.offset });
    pages.push(lists.top(choice.group));
  }
  for (let reach = Math.max(1, firstReach); ; reach *= 4) {
    const taken = pages.map((page, i) => (page === undefined ? parts[i]!.list.rids.length : Math.min(reach, page.rids.length)));
    const count = taken.reduce((sum, n) => sum + n, 0);
    if (count > MAX_CANDIDATES) return undefined;
    const candidates = new Uint32Array(count);
    let at = 0;
    for (let i = 0; i < parts.length; i++) {
      candidates.set((pages[i]?.rids ?? parts[i]!.list.rids).subarray(0, taken[i]), at);
      at += taken[i]!;
    }
    const { top } = drivenTop([parts], distinct(candidates.sort()), depth, ranks);
    if (pages.every((page, i) => page === undefined || taken[i]! >= page.matches || (top.full && ranksBeforeLast(top, parts[i]!, page.rids[taken[i]! - 1]!, ranks)))) {
      return { rids: top.sorted(), total: unionSize(parts.map((part) => part.list.rids)) };
    }
    // Read to their ends, the pages could not tell.
    if (pages.every((page, i) => page === undefined || taken[i] === page.rids.length)) return undefined;
  }
}

/** Whether the worst food of the full `top` ranks before `last` as ranked by `part` alone. */
function ranksBeforeLast(top: TopFoods, part: SlotPart, last: number, ranks: FoodRanks): boolean {
  const alone = drivenTop([[part]], Uint32Array.of(last), 1, ranks).top;
  return ranksBefore(top.worstTier, top.worstScore, top.worstPlace, alone.worstTier, alone.worstScore, alone.worstPlace);
}

/** `sorted` without repeats, in place. */
function distinct(sorted: Uint32Array): Uint32Array {
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[n++] = sorted[i]!;
  return sorted.subarray(0, n);
}

/**
 * How many foods the lists (rids ascending) hold between them: the largest's, then each other's
 * not in a larger one, found by galloping (word-search.ts `seek`). At 1,000,000 foods, 13,839
 * foods against 21,443 took as long as a merge of the two (~0.24 ms on a slow machine), 1,193
 * against 43,185 a fifth of it; a bit set for each food in a scratch bitmap took longer still.
 */
function unionSize(lists: readonly Uint32Array[]): number {
  const bySize = [...lists].sort((a, b) => b.length - a.length);
  let total = bySize[0]!.length;
  for (let i = 1; i < bySize.length; i++) {
    const rids = bySize[i]!;
    const cursors = new Uint32Array(i);
    // Indexed, not for-of: a typed array's iterator is slow until the loop is optimised.
    outer: for (let r = 0; r < rids.length; r++) {
      const rid = rids[r]!;
      for (let j = 0; j < i; j++) {
        const larger = bySize[j]!;
        const at = seek(larger, cursors[j]!, rid);
        cursors[j] = at;
        if (at < larger.length && larger[at] === rid) continue outer;
      }
      total++;
    }
  }
  return total;
}
