import { envInteger } from '../../config.js';
import type { FoodFilters, FoodQuery } from '../catalog-store.js';
import { ANYWHERE_WEIGHTS, IN_NAME_WEIGHTS, bm25Sql } from './bm25-parts.js';
import { matcher } from './matching.js';
import { ANYWHERE, IN_NAME, type PostingList, type WordPostings } from './postings.js';
import { hasFoodFilter } from './queries.js';
import { TOP_DEPTH } from './search-data.js';
import { groupedByBrand, topMatches, type FoodTest } from './word-search.js';
import { earlyTopMatches, matchingFoods, scoreFoods } from './early-top.js';

/**
 * Which plan answers a ranked search, and the plans that do not need the general query.
 *
 * The general query (queries.ts) joins every match to its food, scores it with FTS5's bm25 and
 * sorts: a common word costs ~0.7 µs a match, ~10^5 matches at 1,000,000 foods. Instead:
 * - a query whose words have no `*`, with no filter beyond region, brands, categories and
 *   tags, is ranked in memory from the importer's postings (word-search.ts): the same order
 *   and doubles as the general query, row for row; one common word without filters reads its
 *   first pages from the importer's lists (search-data.ts);
 * - a query with a `*` word and no filter takes candidates from FTS5 alone: the first
 *   `offset + limit` matches by (tier, bm25) are taken there, and only those go to the foods
 *   table, where name_key and id break the remaining ties (`exactTop`);
 * - anything else (a classification filter, `desc`, a page deeper than 1,000, a database from
 *   before the postings) takes the general query.
 */

/** Deeper pages take the general plan: the kept top would approach the match list. */
export const MAX_DEPTH = TOP_DEPTH;
/** Candidates fetched beyond the page, so a tie at the page's last place is usually seen whole. */
export const SLACK = 64;

const SCORE = bm25Sql(ANYWHERE_WEIGHTS);
const NAME_TIER = 'rowid IN (SELECT rowid FROM foods_fts WHERE foods_fts MATCH ?)';
/**
 * One word: "every word in the name" is "this word has an instance in the name", which a bm25
 * weighing only the name column tells (negative when it has one) without building the set of
 * all name matches.
 */
const ONE_WORD_TIER = 'bm25(foods_fts, 1.0, 0.0, 0.0, 0.0, 0.0) < 0';

/** Parameters: name expression, expression, limit. */
export const RANKED_CANDIDATES = `SELECT rowid, ${SCORE} AS score, ${NAME_TIER} AS tier
  FROM foods_fts WHERE foods_fts MATCH ? ORDER BY tier DESC, score ASC LIMIT ?`;
/** Parameters: expression, limit. */
export const RANKED_CANDIDATES_ONE_WORD = `SELECT rowid, ${SCORE} AS score, ${ONE_WORD_TIER} AS tier
  FROM foods_fts WHERE foods_fts MATCH ? ORDER BY tier DESC, score ASC LIMIT ?`;
/** One tie group in name order. Parameters: expression, score, name expression, tier, limit. */
export const RANKED_GROUP = `SELECT f.rid FROM foods_fts m JOIN foods f ON f.rid = m.rowid
  WHERE foods_fts MATCH ? AND ${SCORE} = ? AND (m.${NAME_TIER}) = ? ORDER BY f.name_key, f.id LIMIT ?`;
/** Parameters: expression, score, tier, limit. */
export const RANKED_GROUP_ONE_WORD = `SELECT f.rid FROM foods_fts m JOIN foods f ON f.rid = m.rowid
  WHERE foods_fts MATCH ? AND ${SCORE} = ? AND (${ONE_WORD_TIER}) = ? ORDER BY f.name_key, f.id LIMIT ?`;
/** Candidates with their tie group number, ordered exactly as the general query orders them. */
export const RANKED_PAGE = `SELECT f.rid FROM json_each(?) j JOIN foods f ON f.rid = j.value ->> 0
  ORDER BY j.value ->> 1, f.name_key, f.id LIMIT ? OFFSET ?`;
export const MATCH_COUNT = 'SELECT count(*) FROM foods_fts WHERE foods_fts MATCH ?';
export const TOP_TERM = 'SELECT matches FROM ranked_terms WHERE term = ?';
/** Parameters: list, term. The word's first foods in order, as 32-bit rids. */
export const TOP_PAGE = 'SELECT rids FROM ranked_top WHERE list = ? AND term = ?';

export type Candidate = [rid: number, score: number, tier: number];

export interface TieBreaking {
  /** Candidates as JSON `[[rid, group], …]`, ordered by group, name_key, id. */
  page(candidates: string, limit: number, offset: number): number[];
  /** The foods of one (tier, score) group in name_key, id order. */
  group(tier: number, score: number, limit: number): number[];
}

/**
 * The first `depth` rids in the full order, from candidates sorted by (tier desc, score asc)
 * and fetched `depth + SLACK` deep (fewer: they are all the matches).
 */
export function exactTop(rows: readonly Candidate[], depth: number, run: TieBreaking): number[] {
  const grouped = (part: readonly Candidate[]): string => {
    let group = -1;
    return JSON.stringify(part.map((row, i) => {
      const prev = part[i - 1];
      if (!prev || prev[1] !== row[1] || prev[2] !== row[2]) group++;
      return [row[0], group];
    }));
  };
  const same = (a: Candidate, b: Candidate): boolean => a[1] === b[1] && a[2] === b[2];
  if (rows.length <= depth) return rows.length === 0 ? [] : run.page(grouped(rows), depth, 0);
  const boundary = rows[depth - 1]!;
  if (rows.length < depth + SLACK || !same(rows[rows.length - 1]!, boundary)) return run.page(grouped(rows), depth, 0);
  // The boundary's group may continue past the candidates: everything ahead of it is known,
  // the group itself is read whole from the index.
  let start = depth - 1;
  while (start > 0 && same(rows[start - 1]!, boundary)) start--;
  const head = start === 0 ? [] : run.page(grouped(rows.slice(0, start)), start, 0);
  return head.concat(run.group(boundary[2], boundary[1], depth - start));
}

/** The importer's precomputed lists for one word. */
export interface TopLists {
  term(word: string): { matches: number } | undefined;
  page(list: PostingList, word: string, from: number, to: number): number[];
}

/** The importer's postings of one catalogue version, with what searching them needs. */
export interface WordIndex {
  /** A word's postings; undefined when no food has the word. */
  postings(word: string, list: PostingList): WordPostings | undefined;
  /** Each food's place in name order, by rid. */
  readonly place: Uint32Array;
  /** The filters as a test on a food's rid (food-filters.ts). */
  test(filters: FoodFilters): FoodTest | 'sql';
  readonly brandFacts: { brand: ArrayLike<number>; brandLimit: number };
}

export interface RankedStatements {
  /** `nameExpression` undefined: the query is one word. */
  candidates(nameExpression: string | undefined, expression: string, limit: number): Candidate[];
  page(candidates: string, limit: number, offset: number): number[];
  group(nameExpression: string | undefined, expression: string, tier: number, score: number, limit: number): number[];
  count(expression: string): number;
  /** Undefined on a database imported before the lists existed. */
  readonly top: TopLists | undefined;
  /** Undefined on a database without postings for every word (written before them). */
  readonly words?: WordIndex | undefined;
}

/** The postings of every word, or undefined when one has none (no food matches). */
function listsOf(words: WordIndex, tokens: readonly string[], list: PostingList): WordPostings[] | undefined {
  const lists: WordPostings[] = [];
  for (const token of tokens) {
    const postings = words.postings(token, list);
    if (postings === undefined) return undefined;
    lists.push(postings);
  }
  return lists;
}

/** Larger groups are paged by the general plan. */
const MAX_GROUPING_LIMIT = 100;

/**
 * `grouping=brand&grouping-limit=N` in rank order (the default with a query), from the
 * postings: every match is visited, but in memory, not through FTS5's bm25 and a window sort.
 */
export function groupedSearchPage(q: FoodQuery, run: RankedStatements): { rids: number[]; total: number } | undefined {
  const m = matcher(q.match);
  const g = q.grouping;
  const words = run.words;
  if (m.kind !== 'fts' || !m.tokens || !words || !g || g.by !== 'brand' || g.limit === undefined || g.limit > MAX_GROUPING_LIMIT
    || g.order.field !== 'rank' || g.order.direction !== 'asc' || q.order.field !== 'rank' || q.order.direction !== 'asc') return undefined;
  const accept = words.test(q);
  if (accept === 'sql') return undefined;
  const lists = listsOf(words, m.tokens, ANYWHERE);
  if (lists === undefined) return { rids: [], total: 0 };
  return groupedByBrand(lists, accept, g.limit, q, { place: words.place, ...words.brandFacts });
}

/**
 * Below this many foods for the rarest word (default 20,000), visiting every match in rid
 * order (sequential reads, galloping) costs less than reading the lists in part order with a
 * lookup per food. FOODLOOKUP_EARLY_TOP_MIN changes it (tests use small catalogues).
 */
function earlyMinMatches(): number {
  return envInteger('FOODLOOKUP_EARLY_TOP_MIN', 0, 20_000);
}

/**
 * Up to this many foods in common (default 20,000), several common words are ranked by scoring
 * each of them rather than by early termination, which reads every list to its end when few
 * foods have all the words. FOODLOOKUP_SCORE_ALL_MAX changes it (tests use small catalogues).
 */
function scoreAllMaxMatches(): number {
  return envInteger('FOODLOOKUP_SCORE_ALL_MAX', 0, 20_000);
}

/**
 * Up to this many foods with every word in the name (the name tier), a page of common words
 * is found by scoring them alone; beyond, the threshold algorithm (early-top.ts) fills the
 * page from them sooner than they can all be scored. In process at 1,000,000 foods, the
 * slowest warm searches on that path, each way: tiers of 5,000–15,000 foods scored in
 * 0.17–0.54 ms where the threshold algorithm took 0.54–1.73 ms; at 17,000–28,000 the two were
 * even (0.38–0.79 ms). Over the bench's cold queries, 12,000 against 5,000 alternated request
 * by request: mean −2.5 to −3 %, p99 −3 to −4 % (two runs).
 */
const NAME_TIER_SCORE_MAX = 12_000;

/**
 * Several common words without a filter: counted first (early-top.ts), collecting the foods in
 * common while they are few, and the name tier while it is; those are then scored one by one
 * (the name tier alone when it fills the page), else the page comes from early termination.
 * Otherwise every match is visited and scored (word-search.ts).
 */
function rankInMemory(lists: readonly WordPostings[], accept: FoodTest, depth: number, place: Uint32Array): { rids: number[]; total: number } {
  const shortest = Math.min(...lists.map((p) => p.rids.length));
  if (accept !== undefined || lists.length < 2 || shortest <= earlyMinMatches()) return topMatches(lists, accept, depth, place);
  const { total, rids, named } = matchingFoods(lists, place.length, scoreAllMaxMatches(), Math.max(depth, NAME_TIER_SCORE_MAX));
  // The name tier ranks first: when it fills the page, only its foods are scored.
  if (rids !== undefined) return { rids: scoreFoods(lists, named !== undefined && named.length >= depth ? named : rids, depth, place), total };
  return { rids: earlyTopMatches(lists, depth, place, named), total };
}

/** The page's rids and the total, or undefined when the query needs the general plan. */
export function rankedSearchPage(q: FoodQuery, run: RankedStatements): { rids: number[]; total: number } | undefined {
  const m = matcher(q.match);
  const depth = q.offset + q.limit;
  if (m.kind !== 'fts' || q.order.field !== 'rank' || q.order.direction !== 'asc' || q.grouping || depth > MAX_DEPTH) return undefined;
  const filtered = q.region !== undefined || hasFoodFilter(q);
  const words = run.words;
  if (m.tokens && words) {
    const accept = words.test(q);
    if (accept !== 'sql') {
      const word = m.tokens.length === 1 ? m.tokens[0]! : undefined;
      const stored = word !== undefined && accept === undefined ? run.top?.term(word) : undefined;
      if (stored) return { rids: run.top!.page(ANYWHERE, word!, q.offset, depth), total: stored.matches };
      const lists = listsOf(words, m.tokens, ANYWHERE);
      if (lists === undefined) return { rids: [], total: 0 };
      const { rids, total } = rankInMemory(lists, accept, depth, words.place);
      return { rids: rids.slice(q.offset), total };
    }
  }
  if (filtered) return undefined;
  const nameExpression = m.words === 1 ? undefined : m.nameExpression;
  const rows = run.candidates(nameExpression, m.expression, depth + SLACK);
  const top = exactTop(rows, depth, {
    page: (json, limit, offset) => run.page(json, limit, offset),
    group: (tier, score, limit) => run.group(nameExpression, m.expression, tier, score, limit),
  });
  return {
    rids: top.slice(q.offset),
    total: rows.length < depth + SLACK ? rows.length : run.count(m.expression),
  };
}

/** SOAP foodSearch's order: name bm25, then name_key and id. Parameters: expression, limit. */
export const NAME_CANDIDATES = `SELECT rowid, ${bm25Sql(IN_NAME_WEIGHTS)} AS score, 1 AS tier
  FROM foods_fts WHERE foods_fts MATCH ? ORDER BY score ASC LIMIT ?`;
/** Parameters: expression, score, limit. */
export const NAME_GROUP = `SELECT f.rid FROM foods_fts m JOIN foods f ON f.rid = m.rowid
  WHERE foods_fts MATCH ? AND ${bm25Sql(IN_NAME_WEIGHTS)} = ? ORDER BY f.name_key, f.id LIMIT ?`;

export interface NameSearchStatements {
  names(expression: string, limit: number): Candidate[];
  page(candidates: string, limit: number, offset: number): number[];
  nameGroup(expression: string, score: number, limit: number): number[];
  readonly top: TopLists | undefined;
  readonly words?: WordIndex | undefined;
}

/** The first `limit` rids of a name-only search (`expression` is `name : (…)` of `words`). */
export function nameSearchPage(words: readonly string[], expression: string, limit: number, run: NameSearchStatements): number[] {
  const word = words.length === 1 ? words[0]! : undefined;
  if (word !== undefined && limit <= MAX_DEPTH && run.top?.term(word)) return run.top.page(IN_NAME, word, 0, limit);
  if (run.words) {
    const lists = listsOf(run.words, words, IN_NAME);
    return lists === undefined ? [] : rankInMemory(lists, undefined, limit, run.words.place).rids;
  }
  return exactTop(run.names(expression, limit + SLACK), limit, {
    page: (json, n, offset) => run.page(json, n, offset),
    group: (_tier, score, n) => run.nameGroup(expression, score, n),
  });
}
