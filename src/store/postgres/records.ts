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

/** One generation of the cache: rows by rid, and the rids of rows read by id by their foodId and revisionId. */
class Generation {
  readonly rows = new Map<number, FoodRow>();
  readonly ids = new Map<string, number>();

  add(rid: number, row: FoodRow, byId: boolean): void {
    this.rows.set(rid, row);
    if (byId) this.index(rid, row);
  }

  index(rid: number, row: FoodRow): void {
    this.ids.set(row.id, rid);
    this.ids.set(row.revision_id, rid);
  }
}

/**
 * Food rows of one catalogue version; a version's rows never change, so nothing is ever stale.
 * By-id answers and the pages of repeated searches come from here without a round trip, also
 * while PostgreSQL is away.
 *
 * Two generations instead of an exact LRU: rows go into the young one, a row found in the old
 * one moves up, and when the young one is full the old one is dropped whole. An LRU Map that
 * deletes its oldest entry on every insert leaves holes its iterator walks over, and moving
 * every hit to the end costs a delete and a set: that bookkeeping was 9 % of a cold search's
 * CPU at 1,000,000 foods.
 *
 * Only the rows read by id are found by their ids: a page's rows are kept by rid alone (they
 * still answer a search asked again while PostgreSQL is away). With both uuids of every row
 * inserted too (three Map sets a row, each uuid hashed afresh), a page of 20 fresh rows took
 * 20–26 µs here in isolation, 6–7 µs without them; a page's foods are rarely asked by id next.
 */
export class FoodRowCache {
  private young = new Generation();
  private old = new Generation();

  /** `max` rows at most. */
  constructor(private readonly max: number) {}

  get(rid: number): FoodRow | undefined {
    const row = this.young.rows.get(rid);
    if (row !== undefined) return row;
    const old = this.old.rows.get(rid);
    if (old !== undefined) this.keep(rid, old, this.old.ids.get(old.id) === rid);
    return old;
  }

  byId(id: string): FoodRow | undefined {
    const rid = this.young.ids.get(id) ?? this.old.ids.get(id);
    return rid === undefined ? undefined : this.get(rid);
  }

  /** A row; `byId` when it was read by id (then found by its ids too). */
  put(rid: number, row: FoodRow, byId = false): void {
    if (!this.young.rows.has(rid)) this.keep(rid, row, byId);
    else if (byId) this.young.index(rid, row);
  }

  private keep(rid: number, row: FoodRow, byId: boolean): void {
    this.young.add(rid, row, byId);
    if (this.young.rows.size >= this.max / 2) {
      this.old = this.young;
      this.young = new Generation();
    }
  }
}

/** Rids read in one query at most (a larger turn's misses go in several). */
const BATCH_RIDS = 2000;

interface Batch {
  readonly rids: Set<number>;
  readonly rows: Promise<ReadonlyMap<number, FoodRow>>;
}

/**
 * A version's food rows for pages: from the cache, else read from PostgreSQL together with the
 * rows every other request of the same event-loop turn misses, in one query sent when the
 * turn's I/O has been handled (setImmediate). Under load one round trip then serves many pages,
 * and PostgreSQL plans and starts one statement instead of one per page; a lone request waits
 * no longer than the turn it arrived in.
 */
export class FoodRowReader {
  private pending: Batch | undefined;

  constructor(
    readonly cache: FoodRowCache,
    private readonly read: (rids: readonly number[]) => Promise<readonly (FoodRow & { rid: number })[]>,
  ) {}

  /** The rows of these rids, in the same order. */
  async rows(rids: readonly number[]): Promise<FoodRow[]> {
    const rows = rids.map((rid) => this.cache.get(rid));
    const batches = new Set<Promise<ReadonlyMap<number, FoodRow>>>();
    rids.forEach((rid, i) => {
      if (rows[i] !== undefined) return;
      const batch = this.batch();
      batch.rids.add(rid);
      batches.add(batch.rows);
    });
    if (batches.size === 0) return rows as FoodRow[];
    const read = await Promise.all(batches);
    return rows.map((row, i) => {
      if (row !== undefined) return row;
      for (const byRid of read) {
        const found = byRid.get(rids[i]!);
        if (found !== undefined) return found;
      }
      throw new Error(`food rid ${rids[i]} is not in the catalogue version`);
    });
  }

  /** The open batch of this turn, or a new one when there is none or it is full. */
  private batch(): Batch {
    if (this.pending !== undefined && this.pending.rids.size < BATCH_RIDS) return this.pending;
    const rids = new Set<number>();
    const rows = new Promise<ReadonlyMap<number, FoodRow>>((resolve, reject) => {
      setImmediate(() => {
        if (this.pending?.rids === rids) this.pending = undefined;
        this.read([...rids]).then((found) => {
          const byRid = new Map<number, FoodRow>();
          for (const row of found) {
            byRid.set(row.rid, row);
            this.cache.put(row.rid, row);
          }
          resolve(byRid);
        }, reject);
      });
    });
    this.pending = { rids, rows };
    return this.pending;
  }
}
