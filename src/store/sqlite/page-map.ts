import { freemem } from 'node:os';
import type { Database } from 'better-sqlite3';

/** SQLite's own bound on a memory map (better-sqlite3's build: SQLITE_MAX_MMAP_SIZE). */
export const MAX_MMAP_BYTES = 0x7fff0000;

/** What `mapPages` did, for the server's log. */
export type PagesMapped =
  | { readonly mapped: true; readonly bytes: number; readonly ms: number }
  | { readonly mapped: false; readonly bytes: number; readonly because: string };

/**
 * Reads every page of the database once through the connection's memory map (`mmap_size`), as a
 * serving process starts. A page read through the map for the first time costs the process a
 * page fault, the kernel mapping it (and its neighbours) into the process: a new server's first
 * thousands of searches each read ~20 food rows and some postings from pages not yet mapped, and
 * at 1,000,000 foods those faults were most of a cold search's time outside the engine (a
 * page's rows 256 µs on average in a new process, 70-80 once its pages were mapped; the bench's
 * fts cold c=1 p50 1.34-1.68 → 0.96 ms). The walk takes ~1.2 s for a 2 GB file, once per worker,
 * before it listens. The pages are the OS page cache's, shared by the workers: they count in a
 * process's resident size, not its private memory.
 *
 * Skipped when the map would not cover the whole file (past SQLite's 2 GiB limit pages are read
 * into SQLite's own cache, which the walk would only churn), or when the file is more than half
 * the memory the system has available (`available`, MemAvailable on Linux): there it would read
 * the whole file from disk and push out pages other programs use. A file another process grows
 * later (an import) is mapped again by SQLite, and its pages by use.
 */
export function mapPages(db: Database, available: number = freemem()): PagesMapped {
  const pages = db.pragma('page_count', { simple: true }) as number;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const bytes = pages * pageSize;
  const mapLimit = db.pragma('mmap_size', { simple: true }) as number;
  if (mapLimit < bytes) return { mapped: false, bytes, because: `the file (${mib(bytes)}) is larger than its memory map (${mib(mapLimit)})` };
  if (bytes > available / 2) return { mapped: false, bytes, because: `the file (${mib(bytes)}) is more than half the memory available (${mib(available)})` };
  const started = performance.now();
  // dbstat walks every B-tree page and overflow chain of the file through the pager, which
  // reads them from the map (SQLITE_ENABLE_DBSTAT_VTAB, in better-sqlite3's build).
  db.prepare('SELECT count(*) FROM dbstat').pluck().get();
  return { mapped: true, bytes, ms: performance.now() - started };
}

function mib(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024)).toLocaleString('en')} MiB`;
}
