import type { Database } from 'better-sqlite3';
import { POSTINGS, TopFoods, readPostings, writeFoodBlobs, writePostings } from './common-words.js';
import {
  MAX_DEPTH, NAME_CANDIDATES, NAME_GROUP, RANKED_PAGE, RANK_LIST, SLACK, SOAP_NAME_LIST, exactTop, type Candidate,
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


/** Words matching fewer foods rank in a few milliseconds at request time. */
export function topMinMatches(): number {
  const raw = process.env['FOODLOOKUP_RANKED_TOP_MIN'];
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isInteger(n) && n > 0 ? n : 2000;
}

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
 * Rewrites the lists, the postings of common words and the name ranks (common-words.ts) from
 * the current foods index, inside the caller's transaction. Every change of any food moves
 * bm25's document statistics, so it is all or nothing.
 */
export function rebuildRankedTop(db: Database, minMatches = topMinMatches()): { terms: number } {
  db.exec("DELETE FROM ranked_top; DELETE FROM ranked_terms; DELETE FROM term_postings; DELETE FROM search_blobs");
  const ranks = writeFoodBlobs(db);
  // The vocabulary's counts include foods deleted since the index was last merged: they only
  // choose which words to consider; the stored counts are the postings'.
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.foods_fts_vocab USING fts5vocab(main, 'foods_fts', 'row')");
  const terms = db.prepare('SELECT term, doc FROM temp.foods_fts_vocab WHERE doc >= ?').all(minMatches) as { term: string; doc: number }[];
  const postingsOfTerm = db.prepare(POSTINGS).raw();
  const page = db.prepare(RANKED_PAGE).pluck();
  const names = db.prepare(NAME_CANDIDATES).raw();
  const nameGroup = db.prepare(NAME_GROUP).pluck();
  const insertTerm = db.prepare('INSERT INTO ranked_terms (term, matches) VALUES (?, ?)');
  const insertTop = db.prepare('INSERT INTO ranked_top (list, term, pos, rid) VALUES (?, ?, ?, ?)');
  let stored = 0;
  for (const { term, doc } of terms) {
    // A vocabulary term is a token already: quoted, it matches exactly itself.
    const expression = `"${term.replace(/"/g, '""')}"`;
    const postings = readPostings(postingsOfTerm.iterate(expression) as IterableIterator<[number, number, number]>, doc);
    const matches = postings.rids.length;
    if (matches < minMatches) continue;
    writePostings(db, term, postings);
    insertTerm.run(term, matches);
    const top = new TopFoods(TOP_DEPTH, ranks);
    for (let i = 0; i < matches; i++) top.add(postings.rids[i]!, postings.tiers[i]!, postings.scores[i]!);
    top.sorted().forEach((rid, pos) => insertTop.run(RANK_LIST, term, pos, rid));
    const nameExpression = `name : (${expression})`;
    const soap = exactTop(names.all(nameExpression, TOP_DEPTH + SLACK) as Candidate[], TOP_DEPTH, {
      page: (json, limit, offset) => page.all(json, limit, offset) as number[],
      group: (_tier, score, limit) => nameGroup.all(nameExpression, score, limit) as number[],
    });
    soap.forEach((rid, pos) => insertTop.run(SOAP_NAME_LIST, term, pos, rid));
    stored++;
  }
  db.exec('DROP TABLE temp.foods_fts_vocab');
  return { terms: stored };
}
