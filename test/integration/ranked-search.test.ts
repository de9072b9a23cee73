import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { importInto } from '../helpers/cli.js';
import { ROOT, tempDir } from '../helpers/paths.js';
import { u } from '../helpers/fixture-catalog.js';
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js';
import { foodsQuery } from '../../src/store/sqlite/queries.js';
import { SCHEMA_VERSION } from '../../src/store/sqlite/schema.js';
import { loadSearchIndex } from '../../src/store/sqlite/search-store.js';
import { foodListRequest } from '../../src/query/requests.js';
import { queryWords } from '../../src/domain/text.js';
import { SearchEngine, placedSlots, type StoreLookups } from '../../src/search/engine.js';
import { placementMost } from '../../src/search/bound-first.js';
import { correctionsPage } from '../../src/search/corrections-page.js';
import { PLACEMENT, foodWords, type FoodHead, type Placement } from '../../src/search/food-text.js';
import { MARK, nameMarks } from '../../src/search/food-words.js';
import { formBit, prefixAlternatives } from '../../src/search/plan.js';
import { CLASS_KINDS, NO_PLACE } from '../../src/search/build.js';
import { WEIGHTS, coverOf, coverageBonus, inName, kindOf, packShape, partialCover, placementOf, staticScore } from '../../src/search/ranking.js';
import { ALL_FORMS, choicesUnion, isCommonChoice, storedForChoices, type Choice, type Slot } from '../../src/search/slots.js';
import type { SlotPostings } from '../../src/search/postings.js';
import { TOP_DEPTH } from '../../src/search/search-meta.js';
import { MAX_TOP_PREFIX } from '../../src/search/top-lists.js';
import { Synonyms } from '../../src/search/synonyms.js';
import { ranksBefore } from '../../src/search/word-search.js';
import { seededRandom } from '../../bench/random.js';
import { randomCatalog, type RFood } from '../helpers/random-catalog.js';
import { slotEntryByRules, type SlotEntry } from '../helpers/slot-rules.js';
import type { RawQuery } from '../../src/query/params.js';
import type { FoodQuery } from '../../src/store/catalog-store.js';

/**
 * The search engine's fast paths (stored first pages, the slots' lists in memory, early
 * termination, in-memory filters) against its reference path (`rankAll`: every match scored and
 * sorted, with the filters, grouping and paging of the store's SQL), and the reference itself
 * against an oracle that reads every food's text, on the bundled USDA data plus foods built to
 * tie. Stored first pages are kept here for groups and prefixes of at least 40 foods (2,000 by
 * default), early termination runs for words in more than 100 foods (20,000 by default) with
 * more than 30 in common (20,000), slots of more than 150 foods are wide (50,000), pages of
 * more than 60 candidates are read in the catalogue's bound order (16,384), which holds the
 * best 500 foods' bounds (131,072), so every path is taken on this small catalogue.
 */
process.env['FOODLOOKUP_RANKED_TOP_MIN'] = '40';
process.env['FOODLOOKUP_EARLY_TOP_MIN'] = '100';
process.env['FOODLOOKUP_SCORE_ALL_MAX'] = '30';
// Slots of type-ahead prefixes and synonyms whose groups hold more than 150 foods are made only
// for the foods the query's other words have in common (50,000 by default).
process.env['FOODLOOKUP_WIDE_SLOT'] = '150';
// Unions of more than 8 lists are merged a block of rids at a time, however few their foods (50,000 by default).
process.env['FOODLOOKUP_BLOCK_UNION_MIN'] = '0';
// Pages of more than 30 and at most 60 candidates are read from those collected, larger ones from the catalogue's bound order (16,384 by default).
process.env['FOODLOOKUP_COLLECT_MAX'] = '60';
// The bound order holds the foods of its best bounds up to 500 foods; a page read past them goes on from the matches collected (131,072 by default).
process.env['FOODLOOKUP_BOUND_ORDER_MAX'] = '500';

let dir: string;
let cleanup: () => void;
let db: string;
let store: SqliteCatalogStore;
let sql: Database.Database;
let engine: SearchEngine;

const GENERIC_US = '72e34d90-9563-4433-8ec4-c51801d06330';

before(async () => {
  ({ dir, cleanup } = tempDir());
  db = join(dir, 'sr21.db');
  await importInto(db, 'usda-sr', [join(ROOT, 'data/usda-sr21')]);
  // 100 foods with one and the same text: every one has the same score, only the id orders them.
  const ties: { brands: object[]; tags: object[]; categories: object[]; foods: object[] } = {
    brands: [], tags: [],
    categories: [{ id: u(900), name: 'Tie tests', region: 'us' }],
    foods: Array.from({ length: 100 }, (_, i) => ({
      foodId: u(1000 + ((i * 37) % 100)), region: 'us', brand: GENERIC_US, category: u(900), tags: [], name: 'Zyzzyva tie',
      classification: '', servings: [{ name: '100 g', scale: 1, type: 'mass' }], upcs: {}, nutrients: {},
    })),
  };
  // A word in one food's name and in many other foods' other names: the name tier first.
  const food = (n: number, name: string, extra: object): object => ({
    foodId: u(n), region: 'us', brand: GENERIC_US, category: u(900), tags: [], name, classification: '',
    servings: [{ name: '100 g', scale: 1, type: 'mass' }], upcs: {}, nutrients: {}, ...extra,
  });
  ties.foods.push(
    food(2001, 'Quorblet bar', { description: Array.from({ length: 60 }, (_, i) => `filler${i}`).join(' ') }),
    food(2002, 'Plain biscuit', { otherNames: ['quorblet quorblet quorblet quorblet quorblet'] }),
    // Forms the plural rules alone would miss, and a form a prefix must tell apart.
    food(2003, 'Brownies, fudge', {}), food(2004, 'Brownie mix', {}), food(2005, 'Leaf lard', {}),
  );
  writeFileSync(join(dir, 'ties.json'), JSON.stringify(ties));
  await importInto(db, 'catalog', [join(dir, 'ties.json')]);
  store = new SqliteCatalogStore(db, { readonly: true });
  sql = new Database(db, { readonly: true });
  engine = new SearchEngine(loadSearchIndex(sql), Synonyms.load(['default']));
});

after(async () => {
  sql.close();
  await store.close();
  cleanup();
});

/** The reference answer: every match scored and sorted (`rankAll`), then the store's SQL for filters, grouping and paging. */
function reference(q: FoodQuery, on: Database.Database = sql, ranked = engine): { ids: string[]; total: number } {
  const words = q.match?.type === 'fts' ? queryWords(q.match.query) : [];
  const built = foodsQuery(q, () => ranked.rankAll(ranked.plan(words), undefined));
  const rows = on.prepare(built.page.text).raw().all(...built.page.params) as [number, number?][];
  const total = rows.length > 0 && built.pageCarriesTotal ? rows[0]![1]! : on.prepare(built.count.text).pluck().get(...built.count.params) as number;
  const id = on.prepare('SELECT id FROM foods WHERE rid = ?').pluck();
  return { ids: rows.map(([rid]) => id.get(rid) as string), total };
}

async function agree(raw: RawQuery): Promise<number> {
  const { query } = foodListRequest(raw);
  const page = await store.foods(query);
  const expected = reference(query);
  assert.deepEqual({ ids: page.items.map((hit) => hit.food.foodId), total: page.total }, expected, JSON.stringify(raw));
  return expected.ids.length;
}

/** A fixed pseudo-random walk, so every run checks the same cases. */
function walk(seed: number): (n: number) => number {
  let state = seed;
  return (n) => (state = (state * 1103515245 + 12345) % 2147483648) % n;
}

interface FoodText { rid: number; name: string; classification: string; otherNames: string; description: string; brand: string; servings: number; generic: number }

function foodTexts(on: Database.Database = sql): FoodText[] {
  return on.prepare(`SELECT f.rid, f.name_key AS name, f.classification_fold AS classification, f.other_names_fold AS otherNames,
    f.description_fold AS description, b.name_key AS brand, f.servings, b.name = 'Average All Brands' AS generic
    FROM foods f JOIN brands b ON b.id = f.brand_id ORDER BY f.rid`).all() as FoodText[];
}

/**
 * The foods a class names by their kind (build.ts `CLASS_KINDS`), read off every food's text:
 * a one-word head segment (not a mark's word) followed by at least CLASS_KINDS different second
 * segments is a class; its food whose second segment has one other word is named by that kind
 * when more foods have the kind after a class than at the head of their name, and no head has
 * it after itself in more foods than this class does.
 */
function namedByKind(texts: readonly FoodText[]): Set<number> {
  const v = engine.index.vocabulary;
  const groupOf = (word: string): number => v.groupOf[v.wordNumber(word)!]!;
  const heads = texts.map((food) => foodWords(food));
  const followers = new Map<string, Set<string>>();
  const atHead = new Map<number, number>();
  for (const { words, head } of heads) {
    for (const w of words) if (w.placement === PLACEMENT.head) atHead.set(groupOf(w.word), (atHead.get(groupOf(w.word)) ?? 0) + 1);
    if (head === undefined || nameMarks([head.word]) !== 0) continue;
    if (!followers.has(head.word)) followers.set(head.word, new Set());
    followers.get(head.word)!.add(head.next);
  }
  const isClass = (head: FoodHead): boolean => (followers.get(head.word)?.size ?? 0) >= CLASS_KINDS;
  // Per kind: the names after a class, and the names after each head (class or not).
  const afterClass = new Map<number, number>();
  const afterHead = new Map<number, Map<string, number>>();
  for (const { head } of heads) {
    if (head?.kind === undefined || nameMarks([head.word]) !== 0) continue;
    const g = groupOf(head.kind);
    if (isClass(head)) afterClass.set(g, (afterClass.get(g) ?? 0) + 1);
    if (!afterHead.has(g)) afterHead.set(g, new Map());
    afterHead.get(g)!.set(head.word, (afterHead.get(g)!.get(head.word) ?? 0) + 1);
  }
  const named = new Set<number>();
  texts.forEach((food, i) => {
    const head = heads[i]!.head;
    if (head?.kind === undefined || nameMarks([head.word]) !== 0 || !isClass(head)) return;
    const g = groupOf(head.kind);
    const byHead = afterHead.get(g)!;
    if (afterClass.get(g)! > (atHead.get(g) ?? 0) && byHead.get(head.word) === Math.max(...byHead.values())) named.add(food.rid);
  });
  return named;
}

/** A group's placement and segments as the import stores them: a class's kind stands at the head and in the head segment, not in the second. */
function withKind(placement: number, segments: number, byKind: boolean): [placement: number, segments: number] {
  return byKind && (segments & 2) !== 0 ? [PLACEMENT.head, (segments | 1) & ~2] : [placement, segments];
}

/**
 * The oracle: a query's matches and their order read off every food's own text, as contract C3
 * and ranking.ts say, without the engine's postings, lists or loops. Word groups come from the
 * vocabulary (word-forms.ts, tested on its own); everything else is recomputed here.
 */
function oracle(query: string, nameOnly = false): number[] {
  const words = queryWords(query);
  const plan = engine.plan(words, nameOnly);
  if (plan.matchesNothing) return [];
  const alone = new Set(words.map((w) => `${w.text}${w.prefix ? '*' : ''}`)).size === 1;
  const v = engine.index.vocabulary;
  const found: { rid: number; tier: number; score: number; place: number }[] = [];
  const texts = foodTexts();
  const byKind = namedByKind(texts);
  for (const food of texts) {
    const analysed = foodWords(food);
    // Per group of the food: best placement, segments, forms.
    const groups = new Map<number, { placement: Placement; segments: number; forms: number }>();
    for (const w of analysed.words) {
      const n = v.wordNumber(w.word)!;
      const g = v.groupOf[n]!;
      const had = groups.get(g);
      groups.set(g, {
        placement: Math.min(had?.placement ?? 7, w.placement) as Placement,
        segments: (had?.segments ?? 0) | w.segments,
        forms: ((had?.forms ?? 0) | formBit(v.formOf[n]!)) >>> 0,
      });
    }
    for (const g of groups.values()) [g.placement, g.segments] = withKind(g.placement, g.segments, byKind.has(food.rid)) as [Placement, number];
    const slotMatch = (slot: Slot): SlotEntry | undefined => slotEntryByRules(slot, (choice) => {
      const g = groups.get(choice.group);
      if (g === undefined || (choice.forms !== ALL_FORMS && (g.forms & choice.forms) === 0)) return undefined;
      const kind = kindOf(g.placement, g.segments);
      // A lone type-ahead word's completions other than the word as typed count for no whole-name bonus.
      const typed = slot.prefix === undefined ? undefined : v.wordNumber(slot.prefix);
      const partial = slot.prefix !== undefined && alone && (typed === undefined || v.groupOf[typed] !== choice.group);
      return { named: inName(kind) ? 1 : 0, value: WEIGHTS.placement[placementOf(kind)]! + choice.offset, cover: partial ? partialCover(coverOf(kind)) : coverOf(kind) };
    });
    let tier = 1;
    let sum = 0;
    let cover = 0;
    let matches = true;
    for (const slot of plan.slots) {
      const m = slotMatch(slot);
      if (m === undefined) {
        matches = false;
        break;
      }
      tier &= m.named;
      sum += m.value;
      cover += m.cover;
    }
    if (!matches || (nameOnly && tier === 0)) continue;
    const segmentGroups = [0, 1, 2].map((s) => [...groups.values()].filter((g) => (g.segments >> s) & 1).length);
    // The head segment is covered by the class or by the kind: one word of the two.
    if (byKind.has(food.rid)) segmentGroups[0] = Math.max(1, segmentGroups[0]! - 1);
    const shape = packShape(segmentGroups, [...groups.values()].filter((g) => g.placement < 4).length);
    const nameWords = analysed.words.filter((w) => w.placement < 4).map((w) => w.word);
    const marks = nameMarks(nameWords) | (food.generic === 1 ? 0 : MARK.branded);
    const score = -(sum + staticScore(food.servings, marks) + coverageBonus(cover, shape));
    found.push({ rid: food.rid, tier, score, place: engine.index.place[food.rid]! });
  }
  found.sort((a, b) => (ranksBefore(a.tier, a.score, a.place, b.tier, b.score, b.place) ? -1 : 1));
  return found.map((f) => f.rid);
}

/** Queries of every kind the plan makes: words as typed, forms, typos, synonyms, phrases, prefixes. */
const KINDS_OF_QUERIES = [
  'raw', 'cheese', 'chicken breast', 'apple', 'apples', 'eggs', 'tomato', 'brownie', 'brownies', 'leaf', 'leaves', 'leav*',
  'brocoli', 'chiken breast', 'mozarella', 'parmesean', 'strawbery', 'cinammon', 'soda', 'ketchup', 'hot dog', 'jello', 'aubergine',
  'hash browns', 'white sugar', 'fries', 'ched*', 'cheddar ch*', 'c*', 'raw chick*', 'zyzzyva', 'zyzzyva tie', 'quorblet',
  'nonexistentword', 'raw nonexistentword', 'Crème brûlée', 'with salt', 'babyfood', 'kellogg', 'big mac',
];

/** Every type-ahead prefix the import may store lists for (up to MAX_TOP_PREFIX letters), with its completions and their foods summed. */
function storedPrefixes(v: SearchEngine['index']['vocabulary']): { prefix: string; choices: readonly Choice[]; bound: number }[] {
  const prefixes = new Set(v.words.flatMap((w) => Array.from({ length: Math.min(w.length, MAX_TOP_PREFIX) }, (_, n) => w.slice(0, n + 1))));
  return [...prefixes].map((prefix) => {
    const choices = prefixAlternatives(prefix, v, false)[0]!.terms[0]!.choices;
    return { prefix, choices, bound: choices.reduce((n, c) => n + v.groupFoods[c.group]!, 0) };
  });
}

/** A list's entries as text: each food with its name bit, part and coverage, in order. */
function listEntries(p: SlotPostings): string[] {
  return Array.from(p.rids, (rid, i) => {
    const code = p.codes[i]!;
    return `${rid}:${code & 1}:${p.parts[code >>> 1]}:${p.covers[code >>> 1]}`;
  });
}

describe('the search data the importer writes', () => {
  test('each group\'s postings and each food\'s facts are what reading the food gives', () => {
    const index = engine.index;
    const v = index.vocabulary;
    const expected = new Map<number, [number, number, number][]>();
    const texts = foodTexts();
    const byKind = namedByKind(texts);
    assert.ok(byKind.size > 100, `${byKind.size} foods named by their class's kind`);
    for (const food of texts) {
      const groups = new Map<number, [placement: number, segments: number, forms: number]>();
      for (const w of foodWords(food).words) {
        const n = v.wordNumber(w.word);
        assert.ok(n !== undefined, `${w.word} is in the vocabulary`);
        const g = v.groupOf[n]!;
        const had = groups.get(g);
        groups.set(g, [Math.min(had?.[0] ?? 7, w.placement), (had?.[1] ?? 0) | w.segments, ((had?.[2] ?? 0) | formBit(v.formOf[n]!)) >>> 0]);
      }
      for (const [g, [asRead, segmentsRead, forms]] of groups) {
        const [placement, segments] = withKind(asRead, segmentsRead, byKind.has(food.rid));
        const kind = kindOf(placement, segments);
        let list = expected.get(g);
        if (list === undefined) expected.set(g, (list = []));
        list.push([food.rid, kind * 2 + (inName(kind) ? 1 : 0), forms]);
      }
    }
    assert.equal(expected.size, v.groups);
    for (const [g, list] of expected) {
      const p = index.postings(g)!;
      const stored = [...p.rids].map((rid, i): [number, number, number] => [rid, p.codes[i]!, p.forms === undefined ? formBit(0) : p.forms[i]!]);
      assert.deepEqual(stored, list, v.words[v.wordsOf(g)[0]!]);
      assert.equal(v.groupFoods[g], list.length);
      assert.equal(v.groupNamed[g], list.filter(([, code]) => code & 1).length);
    }
    const order = sql.prepare('SELECT rid FROM foods ORDER BY name_key, id').pluck().all() as number[];
    assert.deepEqual(order.map((rid) => index.place[rid]), order.map((_, i) => i));
    assert.equal(index.place.filter((p) => p !== NO_PLACE).length, texts.length);
  });

  test('an engine warmed in steps (a version a server switched to) holds and answers what one warmed at once does', () => {
    const atOnce = new SearchEngine(loadSearchIndex(sql), Synonyms.load(['default']));
    atOnce.warm();
    const inSteps = new SearchEngine(loadSearchIndex(sql), Synonyms.load(['default']));
    let steps = 0;
    for (const warming = inSteps.warmSteps(); warming.next().done !== true;) steps++;
    // The name places, each common word's list, then at least a step for each of the five bound orders.
    assert.ok(steps > 6, `${steps} steps`);
    assert.ok(atOnce.index.listsHeld > 0);
    assert.equal(inSteps.index.listsHeld, atOnce.index.listsHeld);
    const refuse = (): never => {
      throw new Error('an unfiltered search asks the store nothing');
    };
    const lookups: StoreLookups = {
      brandRid: refuse, tagRid: refuse, categoriesUnder: refuse, classificationFoods: refuse, upcFoods: refuse, firstPlaceFrom: refuse,
      limits: { brand: 0, category: 0, tag: 0 },
    };
    const names = sql.prepare('SELECT name_key FROM foods ORDER BY rid').pluck().all() as string[];
    const next = walk(777);
    for (let i = 0; i < 60; i++) {
      const words = queryWords(names[next(names.length)]!).map((w) => w.text);
      const picked = Array.from({ length: 1 + (i % 3) }, () => words[next(words.length)]!);
      if (i % 2 === 1) picked[picked.length - 1] = `${picked[picked.length - 1]!.slice(0, 1 + next(3))}*`;
      const q: FoodQuery = { match: { type: 'fts', query: picked.join(' ') }, order: { field: 'rank', direction: 'asc' }, limit: 20, offset: 0 };
      assert.deepEqual(inSteps.foods(q, lookups), atOnce.foods(q, lookups), q.match?.query);
    }
  });

  test('no food\'s placements give a query\'s words more than its shape allows (bound-first.ts placementMost)', () => {
    const index = engine.index;
    const weights = new Map<number, number[]>();
    for (let g = 0; g < index.vocabulary.groups; g++) {
      const p = index.postings(g)!;
      p.rids.forEach((rid, i) => {
        let w = weights.get(rid);
        if (w === undefined) weights.set(rid, (w = []));
        w.push(WEIGHTS.placement[placementOf(p.codes[i]! >>> 1)]!);
      });
    }
    // Groups of slots that one word may match together, largest first.
    const ways = [[1], [1, 1], [1, 1, 1], [1, 1, 1, 1], [2], [2, 1], [2, 2], [3, 1], [2, 1, 1]];
    let twoHeads = 0;
    let tight = 0;
    for (const [rid, w] of weights) {
      w.sort((a, b) => b - a);
      if (w[1] === WEIGHTS.placement[PLACEMENT.head]) twoHeads++;
      for (const together of ways) {
        // The most the food gives: the best placements to the largest groups, a word each.
        const most = together.reduce((sum, size, i) => sum + size * (w[i] ?? 0), 0);
        assert.ok(most <= placementMost(index.shape[rid]!, together), `food ${rid}, placements ${w.join(' ')}, groups ${together.join(' ')}: ${most} > ${placementMost(index.shape[rid]!, together)}`);
      }
      if (placementMost(index.shape[rid]!, [1, 1]) === w[0]! + w[1]!) tight++;
    }
    // A class's food named by its kind has two words at its head (build.ts).
    assert.ok(twoHeads > 100, `${twoHeads} foods with two words at the head`);
    // And the bound is the food's own for most foods, not merely a bound.
    assert.ok(tight > weights.size / 2, `${tight} of ${weights.size} foods bounded exactly for two words`);
  });

  test('words of a query that one word of a food may match are grouped (engine.ts placedSlots)', () => {
    const together = (query: string): readonly number[] | undefined => placedSlots(engine.plan(queryWords(query)).slots)?.together;
    assert.deepEqual(together('cheddar cheese'), [1, 1]);
    assert.deepEqual(together('cheddar ch*'), [2]);
    assert.deepEqual(together('raw cooked coo*'), [2, 1]);
    // A typo's corrections, as a prefix's completions, may be the other word.
    assert.deepEqual(together('chicken chiken'), [2]);
    assert.deepEqual(together('ched* cheese ch*'), [3]);
    // A word with synonyms is not placed; a word alone takes no order of its own.
    assert.deepEqual(together('soda chicken breast'), [1, 1]);
    assert.equal(together('soda chicken'), undefined);
  });

  test('the stored first pages of common groups and prefixes are the reference order\'s', () => {
    const index = engine.index;
    const v = index.vocabulary;
    let groups = 0;
    for (let g = 0; g < v.groups; g++) {
      const top = index.top('group', g);
      assert.equal(top !== undefined, v.groupFoods[g]! >= 40, v.words[v.wordsOf(g)[0]!]);
      if (top === undefined) continue;
      groups++;
      // The group as one slot (a word with synonyms would bring more).
      const word = v.words[v.wordsOf(g)[0]!]!;
      const slot: Slot = { key: `g${g}`, alternatives: [{ terms: [{ choices: [{ group: g, forms: ALL_FORMS, offset: 0 }] }], offset: 0, words: 1 }] };
      const all = engine.rankAll({ slots: [slot], corrections: [], matchesNothing: false }, undefined);
      assert.equal(top.matches, all.length, word);
      assert.deepEqual([...top.rids], all.slice(0, TOP_DEPTH), word);
    }
    let prefixes = 0;
    for (const prefix of ['c', 'ch', 'che', 'ched', 'chick', 'b', 'ra', 'raw', 'zy', 'leav', 'brow', 'k']) {
      const top = index.top('prefix', prefix);
      const all = engine.rankAll(engine.plan([{ text: prefix, prefix: true }]), undefined);
      assert.equal(top !== undefined, all.length >= 40 && prefix.length <= MAX_TOP_PREFIX, prefix);
      if (top === undefined) continue;
      prefixes++;
      assert.equal(top.matches, all.length, prefix);
      assert.deepEqual([...top.rids], all.slice(0, TOP_DEPTH), prefix);
    }
    assert.ok(groups > 50 && prefixes > 5, `${groups} groups, ${prefixes} prefixes`);
  });

  test('a wide prefix\'s rare completions are stored as one list, the one its choices make at query time', () => {
    const index = engine.index;
    const v = index.vocabulary;
    const ridLimit = index.place.length;
    const postings = (g: number) => index.postings(g);
    let stored = 0;
    let common = 0;
    let partialSeen = 0;
    for (const { prefix, choices, bound } of storedPrefixes(v)) {
      const rare = choices.filter((c) => !isCommonChoice(c, v.groupFoods[c.group]!, ridLimit));
      common += choices.length - rare.length;
      const rest = index.prefixRest(prefix);
      if (bound <= 150 || rare.length === 0 || bound < 40) {
        assert.equal(rest, undefined, prefix);
        continue;
      }
      assert.ok(rest !== undefined, prefix);
      stored++;
      assert.deepEqual(listEntries(rest), listEntries(choicesUnion(rare, postings)), prefix);
      // The prefix alone: its partial completions' union is the stored list seen with partial covers.
      const alone = prefixAlternatives(prefix, v, false, true)[0]!.terms[0]!.choices;
      const aloneRare = alone.filter((c) => !isCommonChoice(c, v.groupFoods[c.group]!, ridLimit));
      const seen = storedForChoices(rest, aloneRare);
      const partial = aloneRare.filter((c) => c.partial === true).length;
      if (partial === aloneRare.length) {
        assert.deepEqual(listEntries(seen!), listEntries(choicesUnion(aloneRare, postings)), `${prefix}, alone`);
        partialSeen++;
      } else {
        assert.equal(seen, partial === 0 ? rest : undefined, `${prefix}, alone, some completions whole`);
      }
      // The union of every choice, as the reference path makes it: the stored rest and the common lists.
      const whole = choicesUnion(choices, postings);
      assert.ok(whole.rids.length >= rest.rids.length, prefix);
    }
    assert.ok(stored > 20 && common > 10 && partialSeen > 10, `${stored} stored, ${common} common choices, ${partialSeen} seen alone`);
  });

  test('a mid-sized prefix\'s list is stored, the one its completions make at query time', () => {
    const index = engine.index;
    const v = index.vocabulary;
    const postings = (g: number) => index.postings(g);
    let stored = 0;
    let partialSeen = 0;
    for (const { prefix, choices, bound } of storedPrefixes(v)) {
      const list = index.prefixUnion(prefix);
      // Between the first pages' minimum (40 here) and a wide slot (150), when not one group of every form.
      if (bound < 40 || bound > 150 || (choices.length === 1 && choices[0]!.forms === ALL_FORMS)) {
        assert.equal(list, undefined, prefix);
        continue;
      }
      assert.ok(list !== undefined, prefix);
      stored++;
      assert.deepEqual(listEntries(list), listEntries(choicesUnion(choices, postings)), prefix);
      const alone = prefixAlternatives(prefix, v, false, true)[0]!.terms[0]!.choices;
      const seen = storedForChoices(list, alone);
      if (alone.every((c) => c.partial === true)) {
        assert.deepEqual(listEntries(seen!), listEntries(choicesUnion(alone, postings)), `${prefix}, alone`);
        partialSeen++;
      } else {
        const whole = alone.every((c) => c.partial !== true);
        assert.equal(seen, whole ? list : undefined, `${prefix}, alone, the word as typed among its completions`);
      }
    }
    assert.ok(stored > 20 && partialSeen > 10, `${stored} stored, ${partialSeen} seen alone`);
  });
});

describe('the reference order is the oracle\'s (every food\'s text read)', () => {
  for (const query of KINDS_OF_QUERIES) {
    test(`'${query}'`, () => {
      const plan = engine.plan(queryWords(query));
      assert.deepEqual(engine.rankAll(plan, undefined), oracle(query));
    });
  }

  test('names only (SOAP foodSearch)', () => {
    for (const query of ['apple', 'cheese', 'chicken breast', 'brocoli', 'soda', 'quorblet', 'raw cheese']) {
      const words = queryWords(query).map((w) => ({ ...w, prefix: false }));
      const expected = oracle(query, true);
      assert.deepEqual(engine.rankAll(engine.plan(words, true), undefined, true), expected, query);
      for (const limit of [1, 20, 100]) assert.deepEqual(engine.names(words.map((w) => w.text), limit), expected.slice(0, limit), `${query} ${limit}`);
    }
  });
});

describe('ranked search: the fast paths and the reference agree', () => {
  const pages = [[20, 0], [20, 20], [50, 10], [5, 93], [100, 900], [20, 990]] as const;

  for (const q of KINDS_OF_QUERIES) {
    test(`'${q}' at several pages`, async () => {
      for (const [limit, offset] of pages) await agree({ query: q, limit: String(limit), offset: String(offset) });
    });
  }

  test('pairs and triples of words drawn from real names, whole, misspelt, or the last one a prefix', async () => {
    const names = sql.prepare('SELECT name_key FROM foods ORDER BY rid').pluck().all() as string[];
    const next = walk(12345);
    let shown = 0;
    for (let i = 0; i < 160; i++) {
      const words = queryWords(names[next(names.length)]!).map((w) => w.text);
      let picked = Array.from({ length: 2 + (i % 2) }, () => words[next(words.length)]!);
      if (i % 4 === 1) picked = picked.map((w, k) => (k === 0 && w.length >= 5 ? `${w.slice(0, 2)}${w.slice(3)}` : w));
      if (i % 4 === 2) picked[picked.length - 1] = `${picked[picked.length - 1]!.slice(0, 1 + next(4))}*`;
      const query = picked.join(' ');
      for (const [limit, offset] of [[20, 0], [10, 5]] as const) shown += await agree({ query, limit: String(limit), offset: String(offset) });
    }
    assert.ok(shown > 1500, `${shown} foods compared`);
  });

  test('a word corrected to several words: the page read from their stored first pages is the reference\'s', async () => {
    // Misspellings of the vocabulary's words (a letter left out) that the plan corrects to two or more words.
    const index = engine.index;
    const queries = new Set<string>();
    for (const word of index.vocabulary.words) {
      if (word.length < 6 || !/^[a-z]+$/.test(word)) continue;
      for (let k = 1; k < word.length - 1; k++) {
        const typo = word.slice(0, k) + word.slice(k + 1);
        const plan = engine.plan(queryWords(typo));
        const alternatives = plan.slots.length === 1 ? plan.slots[0]!.alternatives : [];
        if (plan.corrections.length === 1 && alternatives.length === 1 && alternatives[0]!.terms[0]!.choices.length >= 2) queries.add(typo);
      }
      if (queries.size >= 150) break;
    }
    const lists = { postings: (g: number) => index.postings(g), top: (g: number) => index.top('group', g) };
    let fromPages = 0;
    let pastReach = 0;
    for (const query of queries) {
      for (const [limit, offset] of [[20, 0], [10, 30], [5, 93]] as const) await agree({ query, limit: String(limit), offset: String(offset) });
      const plan = engine.plan(queryWords(query));
      const choices = plan.slots[0]!.alternatives[0]!.terms[0]!.choices;
      const reference = engine.rankAll(plan, undefined);
      // The pages read from their first 1, 3 or 80 foods (4 × 20, the default): the test of each
      // one's last food read decides whether to read further.
      for (const reach of [1, 3, 80]) {
        const page = correctionsPage(choices, 20, lists, index, reach);
        if (page === undefined) continue;
        assert.deepEqual(page, { rids: reference.slice(0, 20), total: reference.length }, `${query}, pages read from ${reach}`);
        fromPages++;
        if (choices.some((c) => (index.top('group', c.group)?.matches ?? 0) > reach)) pastReach++;
      }
    }
    assert.ok(queries.size >= 100 && fromPages >= 300 && pastReach >= 100, `${queries.size} corrected words, ${fromPages} pages read from their corrections' pages, ${pastReach} of them not read to the end`);
  });

  test('filters tested in memory: region, brands, categories (with the tree), tags, classifications, every combination', async () => {
    const random = seededRandom(777);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    const unknown = u(99999);
    const parentOf = sql.prepare('SELECT parent_id FROM categories WHERE id = ?').pluck();
    const tagsOf = sql.prepare('SELECT tag_id FROM food_tags ft JOIN foods f ON f.rid = ft.food_rid WHERE f.id = ?').pluck();
    let shown = 0;
    let filtered = 0;
    for (let i = 0; i < 160; i++) {
      const query = pick(['raw', 'cheese', 'chicken raw', 'with', 'frozen cooked', 'beef', 'soup', 'oil', 'fat', 'brocoli', 'soda', 'ch*', 'raw ch*', 'cheese*', 'c*']);
      // Ids taken from the unfiltered results, so that every filter keeps some foods and drops others.
      const foods = (await store.foods(foodListRequest({ query, limit: '100' }).query)).items.map((hit) => hit.food);
      if (foods.length === 0) continue;
      const some = <T>(list: readonly T[]): T => (random() < 0.1 ? unknown as T : pick(list));
      const brands = foods.map((f) => f.brand.id);
      const leaves = foods.map((f) => f.category.id);
      const parents = leaves.map((id) => parentOf.get(id) as string | null).filter((id) => id !== null);
      const tags = foods.flatMap((f) => tagsOf.all(f.foodId) as string[]);
      const classes = foods.map((f) => f.classification);
      const raw: Record<string, string> = { query, limit: '20', offset: random() < 0.3 ? '15' : '0' };
      const use = (): boolean => random() < 0.5;
      if (use()) raw['region'] = use() ? 'us' : 'au';
      if (use()) raw['brands'] = use() ? some(brands) : `!${some(brands)},${use() ? `!${some(brands)}` : some(brands)}`;
      if (use() && parents.length > 0) raw['categories'] = `${random() < 0.3 ? '!' : ''}${use() ? some(parents) : `${some(parents)},${some(leaves)}`}`;
      if (use() && tags.length > 0) raw['tags'] = use() ? `!${some(tags)}` : `${some(tags)}${use() ? `,${some(tags)}` : ''}`;
      if (random() < 0.3) raw['classifications'] = `${random() < 0.3 ? '!' : ''}"${pick(classes).toUpperCase().replace(/"/g, '\\"')}"`;
      const count = await agree(raw);
      shown += count;
      if (Object.keys(raw).length > 3) filtered += count;
    }
    assert.ok(shown > 1000 && filtered > 800, `${shown} foods compared, ${filtered} of them filtered`);
  });

  test('grouped by brand, by classification, in rank and name order; rank:desc and name order of matches', async () => {
    for (const q of ['raw', 'cheese', 'kellogg', 'chicken breast', 'with salt', 'zyzzyva tie', 'quorblet', 'raw cheese', 'brocoli', 'ch*', 'cheese*', 'nonexistentword']) {
      for (const perGroup of [1, 3, 50]) {
        for (const [limit, offset] of [[20, 0], [5, 7]] as const) {
          const raw = { query: q, grouping: 'brand', 'grouping-limit': String(perGroup), limit: String(limit), offset: String(offset) };
          await agree(raw);
          await agree({ ...raw, region: 'us' });
          await agree({ ...raw, grouping: 'classification' });
          await agree({ ...raw, 'grouping-order': 'name:desc' });
        }
      }
      await agree({ query: q, order: 'rank:desc', limit: '20' });
      await agree({ query: q, order: 'name:asc', limit: '20', offset: '3' });
      await agree({ query: q, order: 'name:desc', limit: '20' });
      await agree({ query: q, grouping: 'brand', limit: '20' });
    }
  });

  test('the name tier comes first: a name match outranks a stronger match elsewhere', async () => {
    const page = await store.foods(foodListRequest({ query: 'quorblet', limit: '5' }).query);
    assert.deepEqual(page.items.map((hit) => hit.food.name), ['Quorblet bar', 'Plain biscuit']);
  });

  test('a repeated word counts once, in matching and in ranking', async () => {
    const ids = async (query: string): Promise<string[]> =>
      (await store.foods(foodListRequest({ query, limit: '50' }).query)).items.map((hit) => hit.food.foodId);
    for (const [twice, once] of [['Zyzzyva zyzzyva', 'zyzzyva'], ['raw cheese RAW', 'raw cheese'], ['raw* raw', 'raw raw*'], ['apple apples', 'apple']] as const) {
      assert.deepEqual(await ids(twice), await ids(once), twice);
    }
  });

  test('a tie of 100 foods is ordered by id', async () => {
    const first = await store.foods(foodListRequest({ query: 'zyzzyva', limit: '20' }).query);
    assert.equal(first.total, 100);
    assert.deepEqual(first.items.map((hit) => hit.food.foodId), Array.from({ length: 20 }, (_, i) => u(1000 + i)));
  });
});

describe('name order and prefix search: in memory and the store\'s SQL agree', () => {
  test('lists without a query, deep pages, both directions, with and without filters', async () => {
    const total = sql.prepare('SELECT count(*) FROM foods').pluck().get() as number;
    const brand = sql.prepare('SELECT brand_id FROM foods GROUP BY brand_id ORDER BY count(*) DESC LIMIT 1').pluck().get() as string;
    let shown = 0;
    for (const offset of [0, 1, 999, 1000, 5000, total - 3, total, total + 10]) {
      for (const order of [undefined, 'name:desc', 'rank:desc']) {
        for (const filter of [{}, { region: 'us' }, { region: 'au' }, { brands: `!${brand}` }, { brands: brand }] as Record<string, string>[]) {
          const raw: Record<string, string> = { limit: '20', offset: String(offset), ...filter };
          if (order) raw['order'] = order;
          shown += await agree(raw);
        }
      }
    }
    assert.ok(shown > 1000, `${shown} foods compared`);
  });

  test('grouped lists without a query, by brand and by classification: every order, limit and depth, with filters', async () => {
    const total = sql.prepare('SELECT count(*) FROM foods').pluck().get() as number;
    const brand = sql.prepare('SELECT brand_id FROM foods GROUP BY brand_id ORDER BY count(*) DESC LIMIT 1').pluck().get() as string;
    const tag = sql.prepare('SELECT tag_id FROM food_tags GROUP BY tag_id ORDER BY count(*) DESC LIMIT 1').pluck().get() as string;
    let shown = 0;
    for (const grouping of ['brand', 'classification']) {
      for (const [limit, offset] of [[20, 0], [5, 45], [50, total - 10], [5, total + 3]] as const) {
        for (const perGroup of [undefined, '1', '3']) {
          for (const filter of [{}, { region: 'au' }, { brands: `!${brand}` }, { tags: tag }] as Record<string, string>[]) {
            const raw: Record<string, string> = { grouping, limit: String(limit), offset: String(offset), ...filter };
            if (perGroup !== undefined) raw['grouping-limit'] = perGroup;
            shown += await agree(raw);
            shown += await agree({ ...raw, order: 'name:desc' });
            shown += await agree({ ...raw, 'grouping-order': 'name:desc' });
            shown += await agree({ ...raw, order: 'rank:desc', 'grouping-order': 'rank' });
          }
        }
      }
    }
    assert.ok(shown > 1500, `${shown} foods compared`);
  });

  test('prefixes of real names, every order, several pages, with filters, grouped', async () => {
    const names = sql.prepare('SELECT name_key FROM foods ORDER BY rid').pluck().all() as string[];
    const next = walk(4242);
    const prefixes = new Set(['', 'a', 'ch', 'chi', 'zyzzyva tie', 'ZYZ', 'crè', 'cre', '%', 'x_', 'nonexistentprefix', 'beef, ']);
    for (let i = 0; i < 60; i++) {
      const name = names[next(names.length)]!;
      prefixes.add(i % 4 === 0 ? name : name.slice(0, 1 + next(6)));
    }
    let shown = 0;
    let grouped = 0;
    for (const query of prefixes) {
      for (const order of [undefined, 'rank:desc', 'name', 'name:desc']) {
        for (const [limit, offset] of [[20, 0], [5, 13], [50, 950]] as const) {
          const raw: Record<string, string> = { query, 'query-type': 'prefix', limit: String(limit), offset: String(offset) };
          if (order) raw['order'] = order;
          shown += await agree(raw);
          if (offset === 0) await agree({ ...raw, region: 'us', brands: `!${GENERIC_US}` });
          if (offset !== 13) continue;
          // Grouped, from every match in order (store/grouping.ts).
          grouped += await agree({ ...raw, grouping: 'brand' });
          grouped += await agree({ ...raw, grouping: 'classification', 'grouping-limit': '2', 'grouping-order': 'name:desc' });
          grouped += await agree({ ...raw, grouping: 'brand', 'grouping-limit': '1', region: 'au' });
        }
      }
    }
    assert.ok(shown > 4000, `${shown} foods compared`);
    assert.ok(grouped > 1000, `${grouped} grouped foods compared`);
  });
});

/** A copy of the test database made to look like one of schema 5, with FTS5 and the old search tables. */
function schema5Copy(name: string): string {
  const old = join(dir, name);
  copyFileSync(db, old);
  const damaged = new Database(old);
  damaged.exec(`DELETE FROM search_blobs;
    ALTER TABLE foods DROP COLUMN other_names_fold; ALTER TABLE foods DROP COLUMN description_fold; ALTER TABLE foods DROP COLUMN servings;
    CREATE VIRTUAL TABLE foods_fts USING fts5 (name, brand, classification, other_names, description, content = '', contentless_delete = 1);
    CREATE VIRTUAL TABLE brands_fts USING fts5 (name, content = '', contentless_delete = 1);
    CREATE TABLE word_postings (word TEXT NOT NULL, list INTEGER NOT NULL, rids BLOB NOT NULL, codes BLOB NOT NULL, parts BLOB NOT NULL, PRIMARY KEY (word, list));
    CREATE TABLE ranked_terms (term TEXT PRIMARY KEY, matches INTEGER NOT NULL) WITHOUT ROWID;
    UPDATE meta SET value = '5' WHERE key = 'schema_version'`);
  damaged.close();
  return old;
}

describe('a database of schema 5 (FTS5, the old search data, no search columns)', () => {
  test('answers searches read-only from search data built in memory, and is upgraded when next opened for writing', async () => {
    const old = schema5Copy('schema5.db');
    const requests = ['cheese', 'brocoli', 'ched*', 'soda'].map((query) => foodListRequest({ query, limit: '20', region: 'us' }).query);
    const ids = async (s: SqliteCatalogStore): Promise<string[][]> =>
      Promise.all(requests.map(async (r) => (await s.foods(r)).items.map((hit) => hit.food.foodId)));
    const expected = await ids(store);
    assert.ok(expected.every((list) => list.length > 0));
    const reader = new SqliteCatalogStore(old, { readonly: true });
    try {
      assert.deepEqual(await ids(reader), expected);
    } finally {
      await reader.close();
    }
    const writer = new SqliteCatalogStore(old);
    try {
      assert.deepEqual(await ids(writer), expected);
      const w = writer.connection;
      assert.equal(w.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get(), String(SCHEMA_VERSION));
      assert.deepEqual(w.prepare("SELECT name FROM sqlite_master WHERE name LIKE '%fts%' OR name IN ('word_postings', 'ranked_terms', 'ranked_top')").pluck().all(), []);
      assert.deepEqual(w.prepare('SELECT other_names_fold, description_fold, servings FROM foods ORDER BY rid').raw().all(),
        sql.prepare('SELECT other_names_fold, description_fold, servings FROM foods ORDER BY rid').raw().all());
      assert.ok(w.prepare("SELECT 1 FROM search_blobs WHERE key = 'meta'").get() !== undefined);
    } finally {
      await writer.close();
    }
  });
});

describe('a read connection open across an import', () => {
  test('answers from the search data the import wrote', async () => {
    const live = join(dir, 'live.db');
    copyFileSync(db, live);
    const reader = new SqliteCatalogStore(live, { readonly: true });
    const direct = new Database(live, { readonly: true });
    try {
      const { query } = foodListRequest({ query: 'zyzzyva', limit: '20' });
      const ids = async (): Promise<{ ids: string[]; total: number }> => {
        const page = await reader.foods(query);
        return { ids: page.items.map((hit) => hit.food.foodId), total: page.total };
      };
      assert.deepEqual(await ids(), reference(query, direct));
      const more = {
        brands: [], tags: [], categories: [],
        foods: Array.from({ length: 50 }, (_, i) => ({
          foodId: u(3000 + i), region: 'us', brand: GENERIC_US, category: u(900), tags: [], name: 'Zyzzyva',
          classification: '', servings: [{ name: '100 g', scale: 1, type: 'mass' }], upcs: {}, nutrients: {},
        })),
      };
      writeFileSync(join(dir, 'more.json'), JSON.stringify(more));
      await importInto(live, 'catalog', [join(dir, 'more.json')]);
      const after = await ids();
      assert.equal(after.total, 150);
      assert.ok(after.ids.every((id) => id >= u(3000)), 'the new foods, named by the word alone, rank first');
      assert.deepEqual(after, reference(query, direct, new SearchEngine(loadSearchIndex(direct), Synonyms.load(['default']))));
    } finally {
      direct.close();
      await reader.close();
    }
  });
});

describe('imports that change, delete and add foods', () => {
  test('leave the search data what a fresh import of the same catalogue writes', async () => {
    const catalog = randomCatalog(5, 300);
    const write = (name: string, foods: RFood[]): string => {
      const path = join(dir, name);
      writeFileSync(path, JSON.stringify({ ...catalog, foods }));
      return path;
    };
    const edited = join(dir, 'edited.db');
    await importInto(edited, 'catalog', [write('first.json', catalog.foods)]);
    const renamed = catalog.foods.map((f, i) => (i % 3 === 0 ? { ...f, name: `${f.name} cheese cheese`, classification: 'Milk' } : f));
    await importInto(edited, 'catalog', [write('second.json', renamed)]);
    const fewer = renamed.filter((_, i) => i % 5 !== 0).map((f, i) => (i % 7 === 0 ? { ...f, name: 'zebra' } : f));
    const last = write('third.json', fewer);
    await importInto(edited, 'catalog', [last], ['--replace']);
    const fresh = join(dir, 'fresh.db');
    await importInto(fresh, 'catalog', [last]);
    const blobs = (path: string): [string, Buffer][] => {
      const d = new Database(path, { readonly: true });
      try {
        // Rids differ (a fresh import numbers foods anew): compared as answers instead.
        return d.prepare("SELECT key, value FROM search_blobs WHERE key LIKE 'vocabulary/%' ORDER BY key").raw().all() as [string, Buffer][];
      } finally {
        d.close();
      }
    };
    assert.deepEqual(blobs(edited), blobs(fresh));
    const a = new SqliteCatalogStore(edited, { readonly: true });
    const b = new SqliteCatalogStore(fresh, { readonly: true });
    try {
      for (const query of ['cheese', 'zebra', 'apple cheese', 'brulee', 'che*', 'chese']) {
        const request = foodListRequest({ query, limit: '50' }).query;
        const ids = async (s: SqliteCatalogStore): Promise<string[]> => (await s.foods(request)).items.map((hit) => hit.food.foodId);
        assert.deepEqual(await ids(a), await ids(b), query);
      }
    } finally {
      await a.close();
      await b.close();
    }
  });
});
