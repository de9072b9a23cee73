import type { Database } from 'better-sqlite3';
import {
  MAX_DEPTH, NAME_CANDIDATES, NAME_GROUP, RANKED_CANDIDATES_ONE_WORD, RANKED_GROUP_ONE_WORD, RANKED_PAGE, SLACK, exactTop, type Candidate,
} from './ranked-search.js';

/**
 * The first pages of one-word searches on common words, computed at import time.
 *
 * Ranking scores every match: a word in a third of a million foods costs ~200 ms in FTS5
 * however small the page. The catalogue changes only by import, and for one word the whole
 * order (name tier, bm25, name, id) depends on nothing but the catalogue, so the importer
 * writes the first `TOP_DEPTH` foods of each word that matches at least `topMinMatches()`
 * foods (and its match count) once, and those requests become an index range read. Rarer
 * words are cheap to rank at request time. Two orders are kept: the JSON interface's
 * (list 0) and SOAP foodSearch's name-only order (list 1).
 */

/** Pages reaching past this depth take the general plan anyway. */
export const TOP_DEPTH = MAX_DEPTH;

/** Which order a stored list holds: the JSON interface's, or SOAP foodSearch's. */
export const RANK_LIST = 0;
export const SOAP_NAME_LIST = 1;

/** Words matching fewer foods rank in a few milliseconds at request time. */
export function topMinMatches(): number {
  const raw = process.env['FOODLOOKUP_RANKED_TOP_MIN'];
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isInteger(n) && n > 0 ? n : 2000;
}

/** One list's statements: candidates by (tier, score), and one tie group in name order. */
const LISTS = {
  [RANK_LIST]: {
    candidates: RANKED_CANDIDATES_ONE_WORD,
    group: RANKED_GROUP_ONE_WORD,
    groupParams: (match: string, tier: number, score: number, limit: number) => [match, score, tier, limit],
  },
  [SOAP_NAME_LIST]: {
    candidates: NAME_CANDIDATES,
    group: NAME_GROUP,
    groupParams: (match: string, _tier: number, score: number, limit: number) => [match, score, limit],
  },
} as const;

export const TOP_DDL = `
CREATE TABLE IF NOT EXISTS ranked_terms (
  term TEXT PRIMARY KEY,
  matches INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ranked_top (
  list INTEGER NOT NULL,
  term TEXT NOT NULL,
  pos INTEGER NOT NULL,
  rid INTEGER NOT NULL,
  PRIMARY KEY (list, term, pos)
) WITHOUT ROWID;
`;

/**
 * Rewrites both tables from the current foods index, inside the caller's transaction.
 * Every change of any food moves bm25's document statistics, so it is all or nothing.
 */
export function rebuildRankedTop(db: Database, minMatches = topMinMatches()): { terms: number } {
  db.exec('DELETE FROM ranked_top; DELETE FROM ranked_terms');
  // The vocabulary's counts include foods deleted since the index was last merged: they only
  // choose which words to consider; the stored counts come from MATCH.
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.foods_fts_vocab USING fts5vocab(main, 'foods_fts', 'row')");
  const terms = db.prepare('SELECT term FROM temp.foods_fts_vocab WHERE doc >= ?').pluck().all(minMatches) as string[];
  const count = db.prepare('SELECT count(*) FROM foods_fts WHERE foods_fts MATCH ?').pluck();
  const page = db.prepare(RANKED_PAGE).pluck();
  const insertTerm = db.prepare('INSERT INTO ranked_terms (term, matches) VALUES (?, ?)');
  const insertTop = db.prepare('INSERT INTO ranked_top (list, term, pos, rid) VALUES (?, ?, ?, ?)');
  const statements = ([RANK_LIST, SOAP_NAME_LIST] as const).map((list) => ({
    list,
    candidates: db.prepare(LISTS[list].candidates).raw(),
    group: db.prepare(LISTS[list].group).pluck(),
    groupParams: LISTS[list].groupParams,
  }));
  let stored = 0;
  for (const term of terms) {
    // A vocabulary term is a token already: quoted, it matches exactly itself.
    const expression = `"${term.replace(/"/g, '""')}"`;
    const matches = count.get(expression) as number;
    if (matches < minMatches) continue;
    const nameExpression = `name : (${expression})`;
    insertTerm.run(term, matches);
    for (const { list, candidates, group, groupParams } of statements) {
      const match = list === RANK_LIST ? expression : nameExpression;
      const rids = exactTop(candidates.all(match, TOP_DEPTH + SLACK) as Candidate[], TOP_DEPTH, {
        page: (json, limit, offset) => page.all(json, limit, offset) as number[],
        group: (tier, score, limit) => group.all(...groupParams(match, tier, score, limit)) as number[],
      });
      rids.forEach((rid, pos) => insertTop.run(list, term, pos, rid));
    }
    stored++;
  }
  db.exec('DROP TABLE temp.foods_fts_vocab');
  return { terms: stored };
}
