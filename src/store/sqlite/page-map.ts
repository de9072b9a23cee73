import { freemem } from 'node:os';
import type { Database, Statement } from 'better-sqlite3';
import { inTurns } from '../turns.js';

/** SQLite's own bound on a memory map (better-sqlite3's build: SQLITE_MAX_MMAP_SIZE). */
export const MAX_MMAP_BYTES = 0x7fff0000;

/** What `mapPages` did, for the server's log. */
export type PagesMapped =
  | { readonly mapped: true; readonly bytes: number; readonly ms: number; readonly busyMs: number }
  | { readonly mapped: false; readonly bytes: number; readonly because: string };

/**
 * The B-trees a serving process reads at random, each walked in key order a few rows at a time:
 * the foods' rows (a search's page, a food by id), the index of their ids, and the search
 * blobs with their overflow pages (postings read as searches ask for them).
 */
const WALKS = [
  { table: 'foods', key: 'rid', rows: 2_000, payload: undefined },
  { table: 'foods', key: 'id', rows: 4_000, payload: undefined },
  { table: 'search_blobs', key: 'rowid', rows: 4, payload: 'value' },
] as const;

/**
 * Reads the pages a server reads at random once through the connection's memory map
 * (`mmap_size`), in turns of about `turnMs` (1 ms; at least one statement) between which the
 * event loop goes on serving. A request waits for the turn under way at each of its hops
 * through the event loop: at 1,000,000 foods, searches sent one at a time during the walk took
 * p50 24–47 ms with turns of 5 ms and 8.3–8.5 ms with turns of 1 ms (the walk 0.9 → 1.1 s).
 *
 * A page read through the map for the first time costs the process a page fault, the kernel
 * mapping it (and its neighbours) into the process: a new server's first thousands of searches
 * each read ~20 food rows and some postings from pages not yet mapped, and at 1,000,000 foods
 * those faults were a large part of a cold search's time outside the engine (a page of 20 rows
 * 256 µs on average in a new process, 70-80 once its pages were mapped). The walk is ~1.8 s of
 * work for the 1.5 GB those B-trees hold at 1,000,000 foods; the server starts it once it
 * listens, so its start is not delayed. The pages are the OS page cache's, shared by the
 * workers: they count in a process's resident size, not its private memory. Other indexes are
 * mapped by use.
 *
 * Not done when the map would not cover the whole file (past SQLite's 2 GiB limit, pages are
 * read into SQLite's own cache, which the walk would only churn), or when the file is more than
 * half the memory the system has available (`available`, MemAvailable on Linux): there it
 * would read the whole file from disk and push out pages other programs use. A file another
 * process grows later (an import) is mapped again by SQLite, and its pages by use. Stops when
 * the connection closes.
 */
export async function mapPages(db: Database, options: { readonly available?: number; readonly turnMs?: number } = {}): Promise<PagesMapped> {
  const pages = db.pragma('page_count', { simple: true }) as number;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const bytes = pages * pageSize;
  const mapLimit = db.pragma('mmap_size', { simple: true }) as number;
  const available = options.available ?? freemem();
  if (mapLimit < bytes) return { mapped: false, bytes, because: `the file (${mib(bytes)}) is larger than its memory map (${mib(mapLimit)})` };
  if (bytes > available / 2) return { mapped: false, bytes, because: `the file (${mib(bytes)}) is more than half the memory available (${mib(available)})` };
  const started = performance.now();
  const walked = await inTurns(walkSteps(db), () => db.open, options.turnMs ?? 1);
  if (walked === undefined) return { mapped: false, bytes, because: 'the store closed first' };
  return { mapped: true, bytes, ms: performance.now() - started, busyMs: walked.busyMs };
}

/** The walks, a statement a step. */
function* walkSteps(db: Database): Generator<void, void, void> {
  for (const walk of WALKS) {
    // The largest key of the next `rows` rows after the last one read: the subquery reads them
    // in key order from the B-tree that has the key (a covering index for `id`), their
    // payload too when named (a blob's overflow pages).
    const next: Statement<[unknown], { last: unknown }> = db.prepare(
      `SELECT max(k) AS last${walk.payload === undefined ? '' : ', sum(length(substr(p, -1))) AS touched'}
       FROM (SELECT ${walk.key} AS k${walk.payload === undefined ? '' : `, ${walk.payload} AS p`} FROM ${walk.table}
             WHERE ${walk.key} > ? ORDER BY ${walk.key} LIMIT ${walk.rows})`,
    );
    for (let after: unknown = walk.key === 'id' ? '' : -1; ;) {
      const last = next.get(after)?.last;
      if (last === null || last === undefined) break;
      after = last;
      yield;
    }
  }
}

function mib(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024)).toLocaleString('en')} MiB`;
}
