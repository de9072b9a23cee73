import pg from 'pg';
import type { FoodRow } from '../record-rows.js';

/**
 * Rows as the PostgreSQL store reads them: the same shapes as SQLite's (record-rows.ts), with
 * bigint columns (times in ms, counts) as numbers, and a cache of food rows per version.
 */

const INT8 = 20;

/** Type parsers of the reader's queries: bigint as a number (ms times and counts stay far below 2^53). */
export const READ_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
    (oid === INT8 && format !== 'binary' ? (value: string): number => Number(value) : pg.types.getTypeParser(oid, format))) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * Food rows of one catalogue version by rid, the least recently used dropped past `max`; a
 * version's rows never change, so nothing is ever stale. By-id answers and the pages of
 * repeated searches come from here without a round trip, also while PostgreSQL is away.
 */
export class FoodRowCache {
  private readonly byRid = new Map<number, FoodRow>();
  /** foodId or revisionId → rid, for the rows held. */
  private readonly ridOf = new Map<string, number>();

  constructor(private readonly max: number) {}

  get(rid: number): FoodRow | undefined {
    const row = this.byRid.get(rid);
    if (row !== undefined) {
      this.byRid.delete(rid);
      this.byRid.set(rid, row);
    }
    return row;
  }

  byId(id: string): FoodRow | undefined {
    const rid = this.ridOf.get(id);
    return rid === undefined ? undefined : this.get(rid);
  }

  put(rid: number, row: FoodRow): void {
    if (this.byRid.has(rid)) return;
    this.byRid.set(rid, row);
    this.ridOf.set(row.id, rid);
    this.ridOf.set(row.revision_id, rid);
    if (this.byRid.size > this.max) {
      const [oldRid, old] = this.byRid.entries().next().value as [number, FoodRow];
      this.byRid.delete(oldRid);
      this.ridOf.delete(old.id);
      this.ridOf.delete(old.revision_id);
    }
  }
}
