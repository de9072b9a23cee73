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
 * A group of equal (tier, bm25) that runs past the candidates could hide a better name, so
 * then the general query answers instead. The result is the general query's, row for row.
 */

/** Deeper pages take the general query: the candidate list would approach the match list. */
const MAX_DEPTH = 1000;
/** Candidates fetched beyond the page, so a tie at the page's last place is seen whole. */
const SLACK = 64;

export const RANKED_CANDIDATES = `SELECT rowid, bm25(foods_fts, 10.0, 2.0, 4.0, 3.0, 1.0) AS score,
    rowid IN (SELECT rowid FROM foods_fts WHERE foods_fts MATCH ?) AS tier
  FROM foods_fts WHERE foods_fts MATCH ? ORDER BY tier DESC, score ASC LIMIT ?`;
/**
 * One word: "every word in the name" is "this word has an instance in the name", which a bm25
 * weighing only the name column tells (negative when it has one) without building the set of
 * all name matches.
 */
export const RANKED_CANDIDATES_ONE_WORD = `SELECT rowid, bm25(foods_fts, 10.0, 2.0, 4.0, 3.0, 1.0) AS score,
    bm25(foods_fts, 1.0, 0.0, 0.0, 0.0, 0.0) < 0 AS tier
  FROM foods_fts WHERE foods_fts MATCH ? ORDER BY tier DESC, score ASC LIMIT ?`;
/** The candidates with their tie group, ordered exactly as the general query orders them. */
export const RANKED_PAGE = `SELECT f.rid FROM json_each(?) j JOIN foods f ON f.rid = j.value ->> 0
  ORDER BY j.value ->> 1, f.name_key, f.id LIMIT ? OFFSET ?`;
export const MATCH_COUNT = 'SELECT count(*) FROM foods_fts WHERE foods_fts MATCH ?';

export interface RankedStatements {
  /** `nameExpression` undefined: the query is one word. */
  candidates(nameExpression: string | undefined, expression: string, limit: number): [rid: number, score: number, tier: number][];
  page(candidates: string, limit: number, offset: number): number[];
  count(expression: string): number;
}

type Candidate = [rid: number, score: number, tier: number];

/**
 * The page out of candidates sorted by (tier desc, score asc), fetched `depth + SLACK` deep:
 * undefined when a tie at the page's last place may continue past them.
 */
function pageOf(rows: readonly Candidate[], depth: number, limit: number, offset: number, run: Pick<RankedStatements, 'page'>): number[] | undefined {
  if (rows.length >= depth + SLACK) {
    const boundary = rows[depth - 1]!;
    const last = rows[rows.length - 1]!;
    if (last[1] === boundary[1] && last[2] === boundary[2]) return undefined;
  }
  if (offset >= rows.length) return [];
  let group = -1;
  const grouped = rows.map((row, i) => {
    const prev = rows[i - 1];
    if (!prev || prev[1] !== row[1] || prev[2] !== row[2]) group++;
    return [row[0], group];
  });
  return run.page(JSON.stringify(grouped), limit, offset);
}

/** The page's rids and the total, or undefined when the query needs the general plan. */
export function rankedSearchPage(q: FoodQuery, run: RankedStatements): { rids: number[]; total: number } | undefined {
  const m = matcher(q.match);
  const depth = q.offset + q.limit;
  if (m.kind !== 'fts' || q.order.field !== 'rank' || q.order.direction !== 'asc' || q.grouping || q.region
    || hasFoodFilter(q) || depth > MAX_DEPTH) return undefined;
  const rows = run.candidates(m.words === 1 ? undefined : m.nameExpression, m.expression, depth + SLACK);
  const rids = pageOf(rows, depth, q.limit, q.offset, run);
  if (!rids) return undefined;
  return { rids, total: rows.length < depth + SLACK ? rows.length : run.count(m.expression) };
}

/** SOAP foodSearch's order (name bm25, then name_key and id), by the same shortcut. */
export const NAME_CANDIDATES = `SELECT rowid, bm25(foods_fts, 10.0, 0.0, 0.0, 0.0, 0.0) AS score, 1 AS tier
  FROM foods_fts WHERE foods_fts MATCH ? ORDER BY score ASC LIMIT ?`;

export function nameSearchPage(
  expression: string, limit: number, run: Pick<RankedStatements, 'page'> & { names(expression: string, limit: number): Candidate[] },
): number[] | undefined {
  if (limit > MAX_DEPTH) return undefined;
  return pageOf(run.names(expression, limit + SLACK), limit, limit, 0, run);
}
