import type { FoodQuery } from '../catalog-store.js';
import { matcher } from './matching.js';
import { hasFoodFilter } from './queries.js';

/**
 * Ranked full-text search without touching the foods table for every match.
 *
 * The general query joins every match to its food to sort by (name tier, bm25, name_key, id)
 * and counts with a window: at 17,000 matches that is ~50 ms, mostly row fetches and the
 * sort. When nothing but the text filters the foods, the order up to the tie-breakers is
 * known inside FTS5 alone: the first `offset + limit` matches by (tier, bm25) are taken there,
 * and only those few go to the foods table, where name_key and id break the remaining ties.
 * When the group of equal (tier, bm25) at the page's last place runs past the candidates,
 * that one group is read again from FTS5 and ordered by name (`exactTop`). One-word queries
 * on common words read their first pages from lists the importer wrote (ranked-top.ts), and
 * queries of several words are ranked from the importer's postings (common-words.ts).
 * The result is the general query's, row for row.
 */

/** Deeper pages take the general plan: the candidate list would approach the match list. */
export const MAX_DEPTH = 1000;
/** Candidates fetched beyond the page, so a tie at the page's last place is usually seen whole. */
export const SLACK = 64;
/** Which order a stored list (ranked-top.ts) holds: the JSON interface's, or SOAP foodSearch's. */
export const RANK_LIST = 0;
export const SOAP_NAME_LIST = 1;

const SCORE = 'bm25(foods_fts, 10.0, 2.0, 4.0, 3.0, 1.0)';
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
/** Parameters: list, term, first position, end position. */
export const TOP_PAGE = 'SELECT rid FROM ranked_top WHERE list = ? AND term = ? AND pos >= ? AND pos < ? ORDER BY pos';

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
  page(list: number, word: string, from: number, to: number): number[];
}

export interface RankedStatements {
  /** `nameExpression` undefined: the query is one word. */
  candidates(nameExpression: string | undefined, expression: string, limit: number): Candidate[];
  page(candidates: string, limit: number, offset: number): number[];
  group(nameExpression: string | undefined, expression: string, tier: number, score: number, limit: number): number[];
  count(expression: string): number;
  /** Undefined on a database imported before the lists existed. */
  readonly top: TopLists | undefined;
  /** The first `depth` rids and the count from the importer's postings (common-words.ts); undefined without them. */
  readonly common?: (tokens: readonly string[], depth: number) => { rids: number[]; total: number } | undefined;
  /** The same, grouped by brand with at most `perGroup` foods a group: a page of the flat list. */
  readonly commonByBrand?: (tokens: readonly string[], perGroup: number, offset: number, limit: number) => { rids: number[]; total: number } | undefined;
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
  if (m.kind !== 'fts' || !m.tokens || !g || g.by !== 'brand' || g.limit === undefined || g.limit > MAX_GROUPING_LIMIT
    || g.order.field !== 'rank' || g.order.direction !== 'asc' || q.order.field !== 'rank' || q.order.direction !== 'asc'
    || q.region || hasFoodFilter(q)) return undefined;
  return run.commonByBrand?.(m.tokens, g.limit, q.offset, q.limit);
}

/** The page's rids and the total, or undefined when the query needs the general plan. */
export function rankedSearchPage(q: FoodQuery, run: RankedStatements): { rids: number[]; total: number } | undefined {
  const m = matcher(q.match);
  const depth = q.offset + q.limit;
  if (m.kind !== 'fts' || q.order.field !== 'rank' || q.order.direction !== 'asc' || q.grouping || q.region
    || hasFoodFilter(q) || depth > MAX_DEPTH) return undefined;
  const word = m.tokens?.length === 1 ? m.tokens[0]! : undefined;
  const stored = word === undefined ? undefined : run.top?.term(word);
  if (stored) return { rids: run.top!.page(RANK_LIST, word!, q.offset, depth), total: stored.matches };
  const common = m.tokens && m.tokens.length > 1 ? run.common?.(m.tokens, depth) : undefined;
  if (common) return { rids: common.rids.slice(q.offset, depth), total: common.total };
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
export const NAME_CANDIDATES = `SELECT rowid, bm25(foods_fts, 10.0, 0.0, 0.0, 0.0, 0.0) AS score, 1 AS tier
  FROM foods_fts WHERE foods_fts MATCH ? ORDER BY score ASC LIMIT ?`;
/** Parameters: expression, score, limit. */
export const NAME_GROUP = `SELECT f.rid FROM foods_fts m JOIN foods f ON f.rid = m.rowid
  WHERE foods_fts MATCH ? AND bm25(foods_fts, 10.0, 0.0, 0.0, 0.0, 0.0) = ? ORDER BY f.name_key, f.id LIMIT ?`;

export interface NameSearchStatements {
  names(expression: string, limit: number): Candidate[];
  page(candidates: string, limit: number, offset: number): number[];
  nameGroup(expression: string, score: number, limit: number): number[];
  readonly top: TopLists | undefined;
}

/** The first `limit` rids of a name-only search (`expression` is `name : (…)` of `words`). */
export function nameSearchPage(words: readonly string[], expression: string, limit: number, run: NameSearchStatements): number[] {
  const word = words.length === 1 ? words[0]! : undefined;
  if (word !== undefined && limit <= MAX_DEPTH && run.top?.term(word)) return run.top.page(SOAP_NAME_LIST, word, 0, limit);
  return exactTop(run.names(expression, limit + SLACK), limit, {
    page: (json, n, offset) => run.page(json, n, offset),
    group: (_tier, score, n) => run.nameGroup(expression, score, n),
  });
}
