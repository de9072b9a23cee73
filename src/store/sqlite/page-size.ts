import type { Database } from 'better-sqlite3';

/**
 * A new file's page size in bytes (SQLite's default is 4 KiB). The foods table takes ~1.3 KB
 * a food at 1,000,000 foods: larger pages hold more rows with less slack, and the import's
 * writer splits, journals and reads fewer of them, also in its five index builds, each a scan
 * of the whole table (writer.ts). At 1,000,000 foods imports took ~13 % less time than with 4
 * KiB pages (8, 32 and 64 KiB no better) and the file stays further under the 2 GiB a server
 * maps (page-map.ts); searches were within the spread (bench/README.md, "Kept").
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
