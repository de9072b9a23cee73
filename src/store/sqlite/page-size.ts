import type { Database } from 'better-sqlite3';

/**
 * A new file's page size in bytes (SQLite's default is 4 KiB). The foods table takes ~1.3 KB
 * a food at 1,000,000 foods (the stored JSON ~730 bytes): larger pages hold more rows with less
 * slack, and the import's writer splits, journals and reads fewer of them, also in its five
 * index builds, each a scan of the whole table (writer.ts). Alternated CLI imports of
 * 1,000,000 foods took 58.3, 58.6, 63.6, 71.1, 58.9 s at 16 KiB against 66.6, 67.8, 66.7,
 * 68.5, 86.9 at 4 KiB (8 KiB 64.8, 59.5; 32 KiB 61.6; 64 KiB 64.9); the file is 1,831 MiB
 * instead of 1,976, further under the 2 GiB a server maps (page-map.ts). Searches and reads
 * by id were within the spread (bench/README.md).
 */
export const PAGE_SIZE_BYTES = 16_384;

/**
 * Gives an empty file its page size, whichever command makes it first (an import, `start`,
 * `tokens create`: enterWal calls it); before WAL mode, which fixes it. A file that holds a
 * database keeps its own: SQLite changes it only by VACUUM in rollback-journal mode.
 */
export function sizeNewPages(db: Database): void {
  if ((db.pragma('page_count', { simple: true }) as number) === 0) db.pragma(`page_size = ${PAGE_SIZE_BYTES}`);
}
