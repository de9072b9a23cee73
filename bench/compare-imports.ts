/**
 * Whether two catalogue databases hold the same catalogue: for checking that a faster import
 * writes what the old one wrote.
 *
 *   node dist/bench/compare-imports.js A.db B.db [--queries 400]
 *
 * Compared:
 * - the schema (type, name, table and SQL of every object; not root pages or sqlite_master order);
 * - every ordinary table row by row in primary-key (or rowid) order, blobs byte for byte — this
 *   covers search_blobs, word_postings, ranked_terms, ranked_top and the FTS tables' docsize;
 * - times (`updated_at`, meta `last_modified`) through a one-to-one map: each import stamps
 *   Date.now() once, so A's times must map onto B's consistently, not be equal;
 * - each FTS5 table by behaviour, not by segment layout (which depends on merge settings):
 *   row count, its whole vocabulary with document and occurrence counts, and for a spread of
 *   its terms the rowids and bm25 scores of a plain, a column-filtered and a prefix MATCH.
 * Not compared: the FTS shadow tables `_data`, `_idx` (segment layout) and `_config`, and the
 * `origin` column of `_docsize` (contentless_delete): it numbers the segment flush a document
 * went out in, so it moves with the flush points, which every schema change in the transaction
 * and every merge setting shifts; FTS5 reads it only to route deletes to their segments.
 *
 * Exits 0 when equal, 1 with the first differences listed otherwise.
 */
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const TIME_COLUMNS: ReadonlySet<string> = new Set(['updated_at']);
const MAX_REPORTED = 20;

type Row = Record<string, unknown>;

class Differences {
  readonly list: string[] = [];
  count = 0;

  add(message: string): void {
    this.count++;
    if (this.list.length < MAX_REPORTED) this.list.push(message);
  }
}

/** Times of A to times of B, one to one. */
class TimeMap {
  private readonly aToB = new Map<number, number>();
  private readonly bToA = new Map<number, number>();

  agree(a: unknown, b: unknown): boolean {
    if (typeof a !== 'number' || typeof b !== 'number') return a === b;
    const mappedB = this.aToB.get(a);
    const mappedA = this.bToA.get(b);
    if (mappedB === undefined && mappedA === undefined) {
      this.aToB.set(a, b);
      this.bToA.set(b, a);
      return true;
    }
    return mappedB === b && mappedA === a;
  }

  get size(): number {
    return this.aToB.size;
  }
}

function same(a: unknown, b: unknown): boolean {
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  return a === b;
}

function show(value: unknown): string {
  if (Buffer.isBuffer(value)) return `<blob ${value.length} bytes>`;
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

interface Table {
  name: string;
  orderBy: string;
}

/** FTS5 tables, and the shadow tables whose layout is not compared. */
function ftsTables(db: Db): string[] {
  return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%' ORDER BY name")
    .pluck().all() as string[]);
}

function ordinaryTables(db: Db): Table[] {
  const fts = ftsTables(db);
  const layout = new Set(fts.flatMap((t) => [`${t}_data`, `${t}_idx`, `${t}_config`]));
  const names = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as { name: string; sql: string }[];
  return names
    .filter((t) => !t.sql.startsWith('CREATE VIRTUAL TABLE') && !layout.has(t.name))
    .map((t) => {
      const columns = db.prepare(`SELECT name, pk FROM pragma_table_info(?) ORDER BY pk`).all(t.name) as { name: string; pk: number }[];
      const keys = columns.filter((c) => c.pk > 0).map((c) => quote(c.name));
      const withoutRowid = /WITHOUT\s+ROWID\s*$/i.test(t.sql.trim());
      return { name: t.name, orderBy: keys.length > 0 ? keys.join(', ') : withoutRowid ? '1' : 'rowid' };
    });
}

function compareSchema(a: Db, b: Db, out: Differences): void {
  const read = (db: Db): Map<string, string> => new Map(
    (db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_autoindex_%'").all() as Row[])
      .map((r) => [String(r['name']), `${String(r['type'])} on ${String(r['tbl_name'])}: ${String(r['sql'])}`]),
  );
  const sa = read(a);
  const sb = read(b);
  for (const [name, def] of sa) if (sb.get(name) !== def) out.add(`schema: ${name} is ${def} in A, ${sb.get(name) ?? 'missing'} in B`);
  for (const name of sb.keys()) if (!sa.has(name)) out.add(`schema: ${name} only in B`);
  const autoindexes = (db: Db): string => (db.prepare("SELECT group_concat(name) FROM (SELECT name FROM sqlite_master WHERE name LIKE 'sqlite_autoindex_%' ORDER BY name)").pluck().get() as string | null) ?? '';
  if (autoindexes(a) !== autoindexes(b)) out.add(`schema: automatic indexes differ: ${autoindexes(a)} / ${autoindexes(b)}`);
}

function compareTable(a: Db, b: Db, table: Table, times: TimeMap, out: Differences): number {
  const sql = `SELECT * FROM ${quote(table.name)} ORDER BY ${table.orderBy}`;
  // Both prepared before either iterates: a statement that fails on B must not leave A's
  // connection busy, or closing it throws over the real error.
  const sa = a.prepare(sql);
  const sb = b.prepare(sql);
  const ia = sa.iterate() as IterableIterator<Row>;
  const ib = sb.iterate() as IterableIterator<Row>;
  let n = 0;
  try {
    for (;;) {
      const ra = ia.next();
      const rb = ib.next();
      if (ra.done || rb.done) {
        if (!ra.done || !rb.done) out.add(`${table.name}: ${ra.done ? 'A' : 'B'} has fewer rows (${n} rows compared)`);
        return n;
      }
      n++;
      for (const column of Object.keys(ra.value)) {
        if (column === 'origin' && table.name.endsWith('_fts_docsize')) continue;
        // How long each import took is not what it wrote.
        if (table.name === 'meta' && column === 'value' && ra.value['key'] === 'last_import_seconds') continue;
        const va = ra.value[column];
        const vb = rb.value[column];
        const isTime = TIME_COLUMNS.has(column) || (table.name === 'meta' && column === 'value' && ra.value['key'] === 'last_modified');
        const ok = isTime ? times.agree(typeof va === 'string' ? Number(va) : va, typeof vb === 'string' ? Number(vb) : vb) : same(va, vb);
        if (!ok) out.add(`${table.name} row ${n} (${table.orderBy} order) column ${column}: ${show(va)} / ${show(vb)}`);
      }
    }
  } finally {
    ia.return?.();
    ib.return?.();
  }
}

/** Rowids and scores of one query, as text. */
function answer(db: Db, table: string, match: string): string {
  const rows = db.prepare(`SELECT rowid, bm25(${quote(table)}) AS score FROM ${quote(table)} WHERE ${quote(table)} MATCH ? ORDER BY rowid`)
    .raw().all(match) as [number, number][];
  return rows.map(([rid, score]) => `${rid}:${score}`).join(',');
}

function compareFts(a: Db, b: Db, table: string, queries: number, out: Differences): number {
  const count = (db: Db): number => db.prepare(`SELECT count(*) FROM ${quote(table)}`).pluck().get() as number;
  if (count(a) !== count(b)) out.add(`${table}: ${count(a)} rows in A, ${count(b)} in B`);
  const vocab = (db: Db): [string, number, number][] => {
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.compare_vocab USING fts5vocab(main, ${quote(table)}, 'row')`);
    const rows = db.prepare('SELECT term, doc, cnt FROM temp.compare_vocab ORDER BY term').raw().all() as [string, number, number][];
    db.exec('DROP TABLE temp.compare_vocab');
    return rows;
  };
  const va = vocab(a);
  const vb = vocab(b);
  if (va.length !== vb.length) out.add(`${table}: ${va.length} terms in A, ${vb.length} in B`);
  for (let i = 0; i < Math.min(va.length, vb.length); i++) {
    if (va[i]!.join('\u0000') !== vb[i]!.join('\u0000')) {
      out.add(`${table}: vocabulary entry ${i}: ${show(va[i])} / ${show(vb[i])}`);
      break;
    }
  }
  const firstColumn = (a.prepare(`SELECT name FROM pragma_table_info(?) LIMIT 1`).pluck().get(table) as string);
  const step = Math.max(1, Math.floor(va.length / queries));
  let asked = 0;
  for (let i = 0; i < va.length; i += step) {
    const term = va[i]![0];
    const phrase = `"${term.replace(/"/g, '""')}"`;
    const matches = [phrase, `${quote(firstColumn)} : ${phrase}`, `${phrase.slice(0, Math.min(3, term.length) + 1)}" *`];
    for (const match of matches) {
      asked++;
      if (answer(a, table, match) !== answer(b, table, match)) out.add(`${table}: MATCH ${match} answers differently`);
    }
  }
  return asked;
}

export interface Comparison {
  /** Differences found (the first few described in `list`). */
  readonly count: number;
  readonly list: readonly string[];
  /** What was compared, a line per table. */
  readonly log: readonly string[];
}

/** Compares two catalogue databases, opened read-only; `queries` terms are asked per FTS table. */
export function compareDatabases(pathA: string, pathB: string, queries = 400): Comparison {
  const a = new Database(pathA, { readonly: true });
  const b = new Database(pathB, { readonly: true });
  try {
    const out = new Differences();
    const times = new TimeMap();
    const log: string[] = [];
    compareSchema(a, b, out);
    const tablesA = ordinaryTables(a);
    const namesB = ordinaryTables(b).map((t) => t.name);
    if (tablesA.map((t) => t.name).join(',') !== namesB.join(',')) out.add(`tables differ: ${tablesA.map((t) => t.name).join(',')} / ${namesB.join(',')}`);
    // The tables both have are compared all the same (a served database also has the tokens').
    for (const table of tablesA.filter((t) => namesB.includes(t.name))) {
      const started = performance.now();
      const rows = compareTable(a, b, table, times, out);
      log.push(`${table.name}: ${rows} rows (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    }
    for (const table of ftsTables(a)) log.push(`${table}: vocabulary and ${compareFts(a, b, table, queries, out)} MATCH queries`);
    log.push(`time values mapped one to one: ${times.size}`);
    return { count: out.count, list: out.list, log };
  } finally {
    a.close();
    b.close();
  }
}

function main(): number {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { queries: { type: 'string', default: '400' } } });
  const [pathA, pathB] = positionals;
  if (!pathA || !pathB) {
    process.stderr.write('usage: node dist/bench/compare-imports.js A.db B.db [--queries 400]\n');
    return 2;
  }
  const result = compareDatabases(pathA, pathB, Number(values.queries));
  process.stdout.write(`${result.log.join('\n')}\n`);
  if (result.count === 0) {
    process.stdout.write('equal\n');
    return 0;
  }
  process.stdout.write(`${result.count} differences:\n  ${result.list.join('\n  ')}\n`);
  return 1;
}

// Tests import compareDatabases; only a run as a program compares its arguments.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main();
