import { envInteger } from '../config.js';
import { fold, queryWords, type QueryWord } from '../domain/text.js';
import type { FoodQuery } from '../store/catalog-store.js';
import { boundFirstPage, boundOrderSteps, candidatesPage, collectMax, drivenPage, finished, type PlacedSlots, type SlotPart, type UnionSlot } from './bound-first.js';
import { earlyTopMatches, matchingFoods, prepareBitmaps, scoreFoods } from './early-top.js';
import { correctionsPage } from './corrections-page.js';
import { foodTest, type RecordRids } from './food-filters.js';
import { inPlaceOrder, nameOrderPage, prefixMatches, type PrefixRun } from './name-order.js';
import { planQuery, type Correction, type Plan } from './plan.js';
import type { GroupPostings, SlotPostings } from './postings.js';
import type { SearchIndex } from './search-index.js';
import { TOP_DEPTH, wideSlotFoods } from './search-meta.js';
import { bitmapOf } from './rid-bitmaps.js';
import { choiceList, isCommonChoice, materialize, plainGroup, shifted, shiftedGroup, slotBound, storedForChoices, type Choice, type Slot } from './slots.js';
import type { Synonyms } from './synonyms.js';
import { TopFoods, forEachCommonFood, forEachMatch, groupedByBrand, inRankOrder, topMatches, type FoodTest } from './word-search.js';

/**
 * The searches of one catalogue version, as a store asks for them (README.md). A store hands
 * over the query and what only it can look up (record rids, classification matches, the first
 * place of a name key); it gets back rids in order, which it turns into records.
 *
 * Plans, fastest first:
 * - one word or type-ahead prefix alone, no filter, a page within TOP_DEPTH: its stored first
 *   page (top-lists.ts);
 * - a page in rank order within TOP_DEPTH: the slots' lists in memory (word-search.ts,
 *   early-top.ts): counted first, the foods in common scored one by one while they are few,
 *   the name tier alone when it fills the page, else early termination; with filters, every
 *   match visited and tested;
 * - grouped by brand in rank order, at most 20 a group: one pass over the matches;
 * - name order of the matches (and its groupings): `matchesByName`, every match collected,
 *   none scored;
 * - anything else (rank:desc, deeper pages, other groupings): `rankAll`, every match scored and
 *   put in order, the reference the fast paths are tested against. The store groups what
 *   these give (store/grouping.ts).
 */

/** What a foods search answers: a page, or every match in order for the store to group (store/grouping.ts) or page in SQL. */
export type FoodsAnswer =
  | { readonly rids: readonly number[]; readonly total: number; readonly corrections: readonly Correction[] }
  /** Every match, best first; in name order when the query orders its foods by name (no rank plays a part then). */
  | { readonly ranked: readonly number[]; readonly corrections: readonly Correction[] };

/** What only the store can answer: record rids for the filters, and name keys' places. */
export interface StoreLookups extends RecordRids, Pick<PrefixRun, 'firstPlaceFrom'> {}

/**
 * Up to this many foods a group, a brand grouping in rank order keeps each group's best in
 * slots as it visits the matches (word-search.ts `groupedByBrand`); larger groups are made by
 * the store from `rankAll` (store/grouping.ts). In process at 1,000,000 foods (the bench's
 * scenario 6 words, two alternated runs each, mean CPU a request): 10 a group 3.7, 4.5 against
 * 6.4, 6.8 ms; 30: 9.2, 7.9 against 8.7, 7.5; 100: 16, 18 against 8.6, 9.3 (p99 156, 175
 * against 64, 68).
 */
const MAX_GROUPING_LIMIT = 20;

/**
 * Below this many foods for the rarest word (default 20,000), visiting every match in rid
 * order costs less than reading the lists in part order with a lookup per food.
 * FOODLOOKUP_EARLY_TOP_MIN changes it (tests use small catalogues).
 */
function earlyMinMatches(): number {
  return envInteger('FOODLOOKUP_EARLY_TOP_MIN', 0, 20_000);
}

/**
 * Up to this many foods in common (default 20,000), several common words are ranked by scoring
 * each of them rather than by early termination. FOODLOOKUP_SCORE_ALL_MAX changes it.
 */
function scoreAllMaxMatches(): number {
  return envInteger('FOODLOOKUP_SCORE_ALL_MAX', 0, 20_000);
}

/**
 * Up to this many foods in common (or with a rare word's foods as many), bound-first.ts scores
 * them all; beyond, it reads them best bound first. In process at 1,000,000 foods (each query
 * answered 3 times, the least kept), 2,000 rather than 20,000 halved the mean of scenarios 2
 * and 12 and their p99 (13 -> 1.8 ms, 13 -> 4.1 ms).
 */
const BOUND_SCORE_ALL_MAX = 2000;

/** A wide slot is made for the foods the other slots have in common when they are at most this many (beyond, galloping within them cost more than merging the whole union: `cooked co*` 104 → 213 ms). */
const WIDE_WITHIN_MAX = 100_000;

/**
 * Up to this many foods with every word in the name, a page is found by scoring them alone.
 * Early termination can stop only late under this ranking (an unread food may still take
 * coverage bonuses): at 1,000,000 foods 'and cooked' (74,726 in the name tier) took 170 ms
 * through it and 6 ms scored whole, `cooked co*` (the name tier past 100,000) 104 ms against
 * 11.5 ms, in process.
 */
const NAME_TIER_SCORE_MAX = 400_000;

/** Postings loaded before a server listens: less than half the list cache (search-index.ts), which made lists share. */
const WARM_POSTINGS_BYTES = 24 * 1024 * 1024;

export class SearchEngine {
  /**
   * The thresholds' settings, read once: process.env is read through a native interceptor, and
   * read per query (isWide per slot) it had been ~1 % of a worker's CPU at 64 connections of
   * type-ahead after words (`--cpu-prof`).
   */
  private readonly wideFoods = wideSlotFoods();
  private readonly earlyMin = earlyMinMatches();
  private readonly scoreAllMax = scoreAllMaxMatches();
  private readonly collected = collectMax();

  constructor(readonly index: SearchIndex, readonly synonyms: Synonyms) {}

  /**
   * Makes what the first searches would otherwise wait for, at once (`warmSteps`): the bench's
   * in-process tools and tests.
   */
  warm(): void {
    finished(this.warmSteps());
  }

  /**
   * What the first searches would otherwise wait for, in steps, a list or a part of an order
   * each, which a server takes in turns once it listens (store/warm-searches.ts), and a store
   * for a catalogue version it switches to while it serves (an import's): the name places and
   * the postings of the commonest groups up to WARM_POSTINGS_BYTES, with their bitmaps (nearly
   * every multi-word search has a common word; at 1,000,000 foods 'and' alone is ~600,000
   * postings, ~40 ms to read and prepare), then the bound orders (`orderSteps`). Without them,
   * the first searches loaded the lists and made the orders they needed at once: at 1,000,000
   * foods on a slow VM the first search after an import took ~0.5 s and the next ones up to
   * ~0.1 s each.
   */
  *warmSteps(): Generator<void, void, void> {
    yield* this.listSteps();
    yield* this.orderSteps();
  }

  private *listSteps(): Generator<void, void, void> {
    const index = this.index;
    index.names();
    const groups = Array.from(index.vocabulary.groupFoods.keys()).filter((g) => index.vocabulary.groupFoods[g]! * 16 >= index.place.length)
      .sort((a, b) => index.vocabulary.groupFoods[b]! - index.vocabulary.groupFoods[a]!);
    for (const group of groups) {
      if (index.listsHeld >= WARM_POSTINGS_BYTES) break;
      yield;
      const postings = index.postings(group);
      if (postings !== undefined) prepareBitmaps(postings, index.place.length);
    }
  }

  /**
   * `warmSteps`' second part, in steps of about a millisecond: the bound orders of one to three
   * words (bound-first.ts; words that one word of a food may match all, `cheddar ch*`, share the
   * order of their count), 20-140 ms each to make at 1,000,000 foods (by the machine's state),
   * 1.5 MiB each to keep (the best 131,072 foods' rids, every food's bound in a byte). Made
   * before the server listened, they were ~40 % of its start (0.49 of 1.22 s of the worker's CPU
   * on a slow VM); the lists before them (`listSteps`) another ~0.2 s. A search that needs an
   * order before it is made makes it at once.
   */
  private *orderSteps(): Generator<void, void, void> {
    for (const together of [[1], [2], [1, 1], [1, 1, 1], [2, 1]]) {
      const units = together.reduce((sum, size) => sum + size, 0);
      yield* boundOrderSteps(this.index, { units, named: units, placed: { together, mostOffset: [] } });
    }
  }

  plan(words: readonly QueryWord[], nameOnly = false, anyOrder = false): Plan {
    return planQuery(words, this.index.vocabulary, this.synonyms, { nameOnly, anyOrder });
  }

  /**
   * A slot's list: its stored postings when it is one group (seen through its offset when it
   * has one), else a type-ahead prefix's stored list or one made, and cached; with `within`,
   * made for those foods only, not cached.
   */
  slotList(slot: Slot, within?: Uint32Array): SlotPostings | undefined {
    const one = shiftedGroup(slot);
    if (one !== undefined) {
      const p = this.index.postings(one.group);
      return p === undefined ? undefined : shifted(choiceList(p, one), one.offset);
    }
    const postings = (g: number): GroupPostings | undefined => this.index.postings(g);
    if (within !== undefined) return materialize(slot, postings, within);
    // A type-ahead word's slot is its prefix's completions (plan.ts), which the import may have stored.
    return this.index.madeList(slot.key, () => (slot.prefix === undefined ? undefined : storedForChoices(this.index.prefixUnion(slot.prefix), slot.alternatives.flatMap((a) => a.terms.flatMap((t) => t.choices)))) ?? materialize(slot, postings));
  }

  /**
   * The plan's lists. A slot of many groups (a short type-ahead prefix: `ch*` completes to
   * hundreds of words) beside narrower slots is made only for the foods those have in common:
   * its full list would cost more to merge than the whole search.
   */
  private lists(plan: Plan): SlotPostings[] | undefined {
    const wide = plan.slots.map((slot) => plan.slots.length > 1 && this.isWide(slot));
    let within: Uint32Array | undefined;
    const lists: (SlotPostings | undefined)[] = plan.slots.map((slot, i) => (wide[i] ? undefined : this.slotList(slot)));
    if (lists.some((list) => list !== undefined && list.rids.length === 0)) return undefined;
    const narrow = lists.filter((list) => list !== undefined);
    if (narrow.length > 0 && narrow.length < lists.length) {
      const common = matchingFoods(narrow, this.index.place.length, WIDE_WITHIN_MAX, 0, false);
      if (common.rids !== undefined) within = common.rids.slice();
    }
    const out: SlotPostings[] = [];
    for (let i = 0; i < plan.slots.length; i++) {
      const list = lists[i] ?? this.slotList(plan.slots[i]!, within);
      if (list === undefined || list.rids.length === 0) return undefined;
      out.push(list);
    }
    return out;
  }

  /**
   * The stored first page answering a one-slot plan, when there is one: a group's (also for a
   * corrected word: its offset moves every food's score alike, so the order is the group's).
   */
  private stored(plan: Plan, words: readonly QueryWord[]): ReturnType<SearchIndex['top']> {
    if (plan.slots.length !== 1) return undefined;
    const one = shiftedGroup(plan.slots[0]!);
    // (A partial completion ranks its group's foods otherwise: without the whole-name bonus.)
    if (one !== undefined && one.partial !== true) return this.index.top('group', one.group);
    const only = words.length === 1 ? words[0]! : undefined;
    // A type-ahead word alone: its slot is its prefix's completions.
    return only?.prefix ? this.index.top('prefix', only.text) : undefined;
  }

  /** A one-word plan's page when the word matches several groups of forms whole (corrected to several words: corrections-page.ts), from their stored first pages. */
  private correctedPage(plan: Plan, depth: number): { rids: number[]; total: number } | undefined {
    const choices = plan.slots.length === 1 ? oneTermChoices(plan.slots[0]!) : undefined;
    if (choices === undefined) return undefined;
    return correctionsPage(choices, depth, { postings: (g) => this.index.postings(g), top: (g) => this.index.top('group', g) }, this.index);
  }

  /** The plan's lists whole, as the orders of every match read them. */
  private wholeLists(plan: Plan): SlotPostings[] {
    return plan.slots.map((slot) => materialize(slot, (g) => this.index.postings(g)));
  }

  /**
   * Every match of the plan that passes `accept`, in name order: what a query ordered by name
   * pages or groups, where no score plays a part: none is computed (`and`'s 603,581 matches at
   * 1,000,000 foods in name order took 59-63 ms on a slow VM so, ~190 ms ranked first).
   */
  matchesByName(plan: Plan, accept: FoodTest): number[] {
    if (plan.matchesNothing) return [];
    const lists = this.wholeLists(plan);
    const rids = new Uint32Array(Math.min(...lists.map((list) => list.rids.length)));
    let n = 0;
    forEachCommonFood(lists, accept, this.index.place.length, false, (rid) => (rids[n++] = rid));
    return inPlaceOrder(rids.subarray(0, n), this.index.place, this.index.names().byPlace);
  }

  /** Every match of the plan that passes `accept`, best first: the reference order. */
  rankAll(plan: Plan, accept: FoodTest, nameOnly = false): number[] {
    if (plan.matchesNothing) return [];
    const lists = this.wholeLists(plan);
    // A match is in every list: the shortest bounds their number.
    const most = Math.min(...lists.map((list) => list.rids.length));
    const rids = new Uint32Array(most);
    const tiers = new Uint8Array(most);
    const scores = new Float64Array(most);
    let n = 0;
    forEachMatch(lists, accept, this.index, (rid, tier, score) => {
      if (nameOnly && tier !== 1) return;
      rids[n] = rid;
      tiers[n] = tier;
      scores[n++] = score;
    });
    return inRankOrder(rids.subarray(0, n), tiers, scores, this.index.place, this.index.names().byPlace);
  }

  foods(q: FoodQuery, store: StoreLookups): FoodsAnswer | undefined {
    const match = q.match;
    if (match === undefined || match.type === 'prefix') {
      const run = { names: () => this.index.names(), firstPlaceFrom: (key: string) => store.firstPlaceFrom(key), test: (f: FoodQuery) => this.test(f, store) };
      // A prefix's grouped list: every match in order, for the store to group (store/grouping.ts).
      if (match !== undefined && q.grouping !== undefined) return { ranked: prefixMatches(q, run), corrections: [] };
      const page = nameOrderPage(q, run);
      return page === undefined ? undefined : { ...page, corrections: [] };
    }
    const words = queryWords(match.query);
    const plan = this.plan(words);
    const answer = this.answer(q, store, words, plan);
    if (words.length < 2 || !isEmpty(answer)) return answer;
    // Nothing matches the words as typed: their phrases in another order may be in the synonym
    // list (`coffee black` is `black coffee`, the order a food diary's entries often take).
    const again = this.plan(words, false, true);
    const keys = (p: Plan): string => p.slots.map((s) => s.key).join('\n');
    return again.matchesNothing || keys(again) === keys(plan) ? answer : this.answer(q, store, words, again);
  }

  private answer(q: FoodQuery, store: StoreLookups, words: readonly QueryWord[], plan: Plan): FoodsAnswer {
    const corrections = plan.corrections;
    if (plan.matchesNothing) return { rids: [], total: 0, corrections };
    const accept = this.test(q, store);
    const depth = q.offset + q.limit;
    const g = q.grouping;
    const rankAsc = q.order.field === 'rank' && q.order.direction === 'asc';
    if (g !== undefined) {
      if (g.by === 'brand' && g.limit !== undefined && g.limit <= MAX_GROUPING_LIMIT && rankAsc && g.order.field === 'rank' && g.order.direction === 'asc') {
        const lists = this.lists(plan);
        if (lists === undefined) return { rids: [], total: 0, corrections };
        const page = groupedByBrand(lists, accept, g.limit, q, { ranks: this.index, brand: this.index.facts.brand, brandLimit: this.index.meta.brandLimit });
        return { ...page, corrections };
      }
      return { ranked: q.order.field === 'name' ? this.matchesByName(plan, accept) : this.rankAll(plan, accept), corrections };
    }
    if (!rankAsc || depth > TOP_DEPTH) {
      const all = q.order.field === 'name' ? this.matchesByName(plan, accept) : this.rankAll(plan, accept);
      if (q.order.direction === 'desc') all.reverse();
      return { rids: all.slice(q.offset, depth), total: all.length, corrections };
    }
    const top = accept === undefined ? this.stored(plan, words) : undefined;
    if (top !== undefined) return { rids: Array.from(top.rids.subarray(q.offset, depth)), total: top.matches, corrections };
    const corrected = accept === undefined ? this.correctedPage(plan, depth) : undefined;
    if (corrected !== undefined) return { rids: corrected.rids.slice(q.offset), total: corrected.total, corrections };
    const page = accept === undefined ? this.unionPage(plan, depth) : undefined;
    if (page !== undefined) return { rids: page.rids.slice(q.offset), total: page.total, corrections };
    const lists = this.lists(plan);
    if (lists === undefined) return { rids: [], total: 0, corrections };
    const { rids, total } = this.rankInMemory(lists, accept, depth);
    return { rids: rids.slice(q.offset), total, corrections };
  }

  /** A slot of no single shifted group that may match more foods than `wideSlotFoods` (search-meta.ts; `slotBound`). */
  private isWide(slot: Slot): boolean {
    return shiftedGroup(slot) === undefined && slotBound(slot, this.index.vocabulary.groupFoods) > this.wideFoods;
  }

  /**
   * An unfiltered page from the slots as unions of lists (bound-first.ts), when every slot is a
   * word's stored list, a narrow slot's made list, or a wide slot of one term of choices (a
   * type-ahead prefix of many completions, a typo's corrections): its common choices' stored
   * lists as they are and one list made of the rest, so the union of hundreds of lists is never
   * made. Undefined for the other plans (a wide slot of synonyms; several plain words of
   * which one has few foods, which `rankInMemory` drives from that word).
   */
  private unionPage(plan: Plan, depth: number): { rids: number[]; total: number } | undefined {
    const ridLimit = this.index.place.length;
    const slots: UnionSlot[] = [];
    let unions = 0;
    let units = 0;
    // Terms that may count for the name's coverage: not a type-ahead word's longer completions.
    let namedUnits = 0;
    for (const slot of plan.slots) {
      units += Math.max(...slot.alternatives.map((a) => a.terms.length));
      namedUnits += Math.max(...slot.alternatives.map((a) => a.terms.filter((t) => t.choices.some((c) => c.partial !== true)).length));
      if (this.isWide(slot)) {
        const choices = oneTermChoices(slot);
        if (choices === undefined) return undefined;
        const parts = this.unionParts(slot, choices);
        if (parts.length === 0) return { rids: [], total: 0 };
        slots.push(parts);
        unions++;
        continue;
      }
      const list = this.slotList(slot);
      if (list === undefined || list.rids.length === 0) return { rids: [], total: 0 };
      slots.push([{ list, offset: 0 }]);
    }
    const few = Math.min(this.scoreAllMax, BOUND_SCORE_ALL_MAX);
    const plain = slots.filter((s) => s.length === 1).map((s) => s[0]!.list);
    const rarest = Math.min(...plain.filter((list) => bitmapOf(list, ridLimit) === undefined).map((list) => list.rids.length));
    // Plain words of which one has few foods: rankInMemory drives from it.
    if (unions === 0 && (slots.length < 2 || rarest <= few)) return undefined;
    if (rarest < Infinity) {
      // The plain words' foods in common, while few, are each looked up in every slot. When
      // every slot is a plain word, they are its matches, collected with the name tier while
      // within collectMax(), and the page is read from them alone.
      const collected = unions === 0 ? Math.max(few, depth, this.collected) : 0;
      // With a union among the slots, their foods in common are needed only while few.
      const common = matchingFoods(plain, ridLimit, Math.max(few, collected), collected, unions === 0);
      if (common.rids !== undefined && common.total <= few) return drivenPage(slots, common.rids, depth, this.index);
      const named = common.named?.length;
      if (unions === 0 && named !== undefined) {
        // With the name tier as large as the page, only its foods can enter it.
        const candidates = named >= depth ? common.named : common.rids;
        if (candidates !== undefined) return { rids: candidatesPage(slots, candidates, named, { units, named: namedUnits, placed: placedSlots(plan.slots) }, depth, this.index), total: common.total };
      }
    }
    return boundFirstPage(slots, { units, named: namedUnits, placed: placedSlots(plan.slots) }, depth, this.index, few);
  }

  /**
   * A wide slot's lists: its common choices' stored lists (those of a bitmap's density, every
   * form: rareChoices in top-lists.ts), each with its offset, and one list of the others.
   */
  private unionParts(slot: Slot, choices: readonly Choice[]): SlotPart[] {
    const ridLimit = this.index.place.length;
    const groupFoods = this.index.vocabulary.groupFoods;
    const parts: SlotPart[] = [];
    const rare: Choice[] = [];
    // Told apart by the vocabulary's counts: a rare choice's own postings are not read when its
    // prefix's rest is stored (a 2-letter prefix has hundreds of them).
    for (const choice of choices) {
      if (!isCommonChoice(choice, groupFoods[choice.group]!, ridLimit)) {
        rare.push(choice);
        continue;
      }
      const p = this.index.postings(choice.group);
      if (p !== undefined) parts.push({ list: choiceList(p, choice), offset: choice.offset });
    }
    if (rare.length > 0) {
      // A prefix's rest is stored by the import (top-lists.ts); a correction's is made here, and kept.
      const stored = slot.prefix === undefined ? undefined : storedForChoices(this.index.prefixRest(slot.prefix), rare);
      const rest = stored ?? this.slotList({ key: `${slot.key}/rare`, alternatives: [{ terms: [{ choices: rare }], offset: 0, words: 1 }] });
      if (rest !== undefined && rest.rids.length > 0) parts.push({ list: rest, offset: 0 });
    }
    return parts;
  }

  /**
   * Several lists without a filter: counted first (early-top.ts), collecting the foods in common
   * while they are few, and the name tier while it is; those are then scored one by one (the
   * name tier alone when it fills the page), else the page comes from early termination.
   * Otherwise every match is visited and scored (word-search.ts).
   */
  private rankInMemory(lists: readonly SlotPostings[], accept: FoodTest, depth: number): { rids: number[]; total: number } {
    const shortest = Math.min(...lists.map((p) => p.rids.length));
    if (accept !== undefined || lists.length < 2 || shortest <= this.earlyMin) return topMatches(lists, accept, depth, this.index);
    const { total, rids, named } = matchingFoods(lists, this.index.place.length, this.scoreAllMax, Math.max(depth, NAME_TIER_SCORE_MAX));
    if (rids !== undefined) return { rids: scoreFoods(lists, named !== undefined && named.length >= depth ? named : rids, depth, this.index), total };
    return { rids: earlyTopMatches(lists, depth, this.index, named), total };
  }

  /** SOAP foodSearch: foods whose name has every word, best first, at most `limit`. */
  names(words: readonly string[], limit: number): number[] {
    const plan = this.plan(words.map((text) => ({ text, prefix: false })), true);
    if (plan.matchesNothing) return [];
    const group = plan.slots.length === 1 ? plainGroup(plan.slots[0]!) : undefined;
    const top = group === undefined ? undefined : this.index.top('group', group);
    // The stored page starts with the name tier: when that alone fills the answer, it is the answer.
    if (top !== undefined && top.named >= limit && limit <= top.rids.length) return Array.from(top.rids.subarray(0, limit));
    const lists = this.lists(plan);
    if (lists === undefined) return [];
    if (lists.length > 1) {
      const { named } = matchingFoods(lists, this.index.place.length, 0, NAME_TIER_SCORE_MAX);
      if (named !== undefined) return scoreFoods(lists, Uint32Array.from(named), limit, this.index);
    }
    const top2 = new TopFoods(limit, this.index.place);
    forEachMatch(lists, undefined, this.index, (rid, tier, score) => {
      if (tier === 1) top2.add(rid, tier, score);
    });
    return top2.sorted();
  }

  /** Records whose name matches (brands, categories, tags: an index of their names), in rid order. */
  matching(text: string): { rids: number[]; corrections: readonly Correction[] } {
    const plan = this.plan(queryWords(text));
    if (plan.matchesNothing) return { rids: [], corrections: plan.corrections };
    const rids: number[] = [];
    const lists = this.lists(plan);
    if (lists !== undefined) forEachMatch(lists, undefined, this.index, (rid) => rids.push(rid));
    return { rids, corrections: plan.corrections };
  }

  test(filters: Parameters<typeof foodTest>[0], store: RecordRids): FoodTest {
    return foodTest(filters, this.index.facts, store);
  }
}

function isEmpty(answer: FoodsAnswer): boolean {
  return 'ranked' in answer ? answer.ranked.length === 0 : answer.total === 0;
}

/** The choices of a slot that is one term of one word (a type-ahead prefix, a typo's corrections), with no offset of its own. */
function oneTermChoices(slot: Slot): readonly Choice[] | undefined {
  if (slot.alternatives.length !== 1) return undefined;
  const alternative = slot.alternatives[0]!;
  if (alternative.terms.length !== 1 || alternative.offset !== 0 || alternative.words !== 1) return undefined;
  return alternative.terms[0]!.choices;
}

/**
 * The slots of one term of one word, whose values are a placement's weight plus a choice's
 * offset (bound-first.ts `PlacedSlots`), grouped where one word may match several: slots that
 * share a group of forms (`cooked coo*`), transitively. Undefined with fewer than two: a
 * single one takes no order of its own.
 */
export function placedSlots(slots: readonly Slot[]): PlacedSlots | undefined {
  const choices = slots.map(oneTermChoices);
  const mostOffset = choices.map((of) => {
    if (of === undefined || of.length === 0) return undefined;
    let most = -Infinity;
    for (const c of of) most = Math.max(most, c.offset);
    return most;
  });
  const placed = slots.flatMap((_, i) => (mostOffset[i] === undefined ? [] : [i]));
  if (placed.length < 2) return undefined;
  // Each placed slot's group of slots, by the first slot in it.
  const root = slots.map((_, i) => i);
  const find = (i: number): number => (root[i] === i ? i : (root[i] = find(root[i]!)));
  for (const i of placed) {
    for (const j of placed) {
      if (j > i && find(i) !== find(j) && shareGroup(choices[i]!, choices[j]!)) root[find(j)] = find(i);
    }
  }
  const sizes = new Map<number, number>();
  for (const i of placed) sizes.set(find(i), (sizes.get(find(i)) ?? 0) + 1);
  return { together: [...sizes.values()].sort((a, b) => b - a), mostOffset };
}

/** Whether two slots' choices have a group of forms in common (a word, a prefix's hundreds of completions). */
function shareGroup(a: readonly Choice[], b: readonly Choice[]): boolean {
  const [few, many] = a.length <= b.length ? [a, b] : [b, a];
  if (few.length === 1) return many.some((c) => c.group === few[0]!.group);
  const groups = new Set(many.map((c) => c.group));
  return few.some((c) => groups.has(c.group));
}

/** The folded key a prefix query matches names by (contract C3 `prefix`). */
export function prefixKey(query: string): string {
  return fold(query);
}
