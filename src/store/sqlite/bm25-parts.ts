import type { Database, Statement } from 'better-sqlite3';

/**
 * Each word's part of FTS5's bm25 for each food, computed as FTS5's bm25() computes it
 * (fts5_aux.c, fts5Bm25Function) from the statistics it reads, without running bm25 per food:
 * asking FTS5 for the part of every (word, food) pair cost ~1.5 µs each, reading the index's
 * instances once ~0.7 µs. The doubles are FTS5's own: the same operations in the same order
 * on the same inputs, and the idf's logarithm is SQLite's (C's `log`), not V8's.
 *
 *   part = -1.0 * (0.0 + idf * ((f * (k1 + 1.0)) / (f + k1 * (1 - b + b * D / avgdl))))
 *
 * with f the word's count in the food weighted by column, D the food's length in tokens (all
 * columns), avgdl the table's total tokens over its row count, and idf from the number of
 * foods with the word (in the searched columns).
 */

const K1 = 1.2;
const B = 0.75;

/** Reads an SQLite varint (as FTS5 writes its records) at `at`; returns it and the next offset. */
function varint(buffer: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  for (let i = 0; i < 8; i++) {
    const byte = buffer[at + i]!;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [value, at + i + 1];
  }
  return [value * 256 + buffer[at + 8]!, at + 9];
}

/** The sum of a record of varints (a docsize row: one length per column). */
function sumOfVarints(buffer: Uint8Array): number {
  let sum = 0;
  for (let at = 0; at < buffer.length;) {
    const [value, next] = varint(buffer, at);
    sum += value;
    at = next;
  }
  return sum;
}

/** Docsize rows per aggregated text: a bound on its size (~20 bytes a row). */
const DOCSIZE_CHUNK = 65_536;

/**
 * Each row's length in tokens from the docsize table, read as aggregated text ("rowid:hex of
 * its varints", listed-integers.ts explains why): a row at a time, a Buffer each, took ~2.5 s
 * at 1,000,000 foods.
 */
function docLengths(db: Database, table: string, maxRowid: number): Uint32Array {
  const lengths = new Uint32Array(maxRowid + 1);
  const chunk = db.prepare(`SELECT group_concat(id || ':' || hex(sz)) FROM "${table}_docsize" WHERE id >= ? AND id < ?`).pluck();
  const hexDigit = (code: number): number => (code <= 57 ? code - 48 : code - 55);
  for (let from = 0; from <= maxRowid; from += DOCSIZE_CHUNK) {
    const text = chunk.get(from, Math.min(from + DOCSIZE_CHUNK, maxRowid + 1)) as string | null;
    if (text === null) continue;
    let i = 0;
    while (i < text.length) {
      let rowid = 0;
      for (let code = text.charCodeAt(i++); code !== 58; code = text.charCodeAt(i++)) rowid = rowid * 10 + (code - 48);
      // The row's varints, as varint() reads them, summed.
      let sum = 0;
      let value = 0;
      let bytesInValue = 0;
      for (; i < text.length && text.charCodeAt(i) !== 44; i += 2) {
        const byte = hexDigit(text.charCodeAt(i)) * 16 + hexDigit(text.charCodeAt(i + 1));
        if (++bytesInValue === 9) {
          sum += value * 256 + byte;
        } else {
          value = value * 128 + (byte & 0x7f);
          if (byte & 0x80) continue;
          sum += value;
        }
        value = 0;
        bytesInValue = 0;
      }
      i++;
      lengths[rowid] = sum;
    }
  }
  return lengths;
}

export class Bm25Parts {
  private readonly idfs = new Map<number, number>();
  private readonly ln: Statement;

  private constructor(
    db: Database,
    /** The row count bm25 uses: FTS5's averages record, which deletes need not lower. */
    private readonly rows: number,
    private readonly avgdl: number,
    /** Each food's length in tokens, all columns, by rowid (FTS5's docsize table). */
    private readonly lengths: Uint32Array,
  ) {
    this.ln = db.prepare('SELECT ln((? - ? + 0.5) / (? + 0.5))').pluck();
  }

  /** The statistics of `table` (an FTS5 table with its docsize table), for rowids up to `maxRowid`. */
  static read(db: Database, table: string, maxRowid: number): Bm25Parts {
    const averages = db.prepare(`SELECT block FROM "${table}_data" WHERE id = 1`).pluck().get() as Buffer | undefined;
    let rows = 0;
    let tokens = 0;
    if (averages !== undefined) {
      let at: number;
      [rows, at] = varint(averages, 0);
      // FTS5's xColumnTotalSize(-1): the per-column totals that follow, summed.
      tokens = sumOfVarints(averages.subarray(at));
    }
    return new Bm25Parts(db, rows, tokens / rows, docLengths(db, table, maxRowid));
  }

  /** FTS5's idf for a phrase in `hits` rows, floored at 1e-6 as FTS5 floors it. */
  idf(hits: number): number {
    let idf = this.idfs.get(hits);
    if (idf === undefined) {
      const ln = this.ln.get(this.rows, hits, hits) as number | null;
      idf = ln === null || ln <= 0.0 ? 1e-6 : ln;
      this.idfs.set(hits, idf);
    }
    return idf;
  }

  /** The food's length in tokens, all columns. */
  length(rowid: number): number {
    return this.lengths[rowid]!;
  }

  /** The part for a food of `length` tokens (length()) whose weighted count of the word is `frequency`. */
  part(idf: number, frequency: number, length: number): number {
    let score = 0.0;
    score += idf * ((frequency * (K1 + 1.0)) / (frequency + K1 * (1 - B + (B * length) / this.avgdl)));
    return -1.0 * score;
  }
}

/** The foods index's columns, in their order in `foods_fts`. */
export const FOODS_FTS_COLUMNS = ['name', 'brand', 'classification', 'other_names', 'description'] as const;
/** Column weights of the JSON interface's ranking: the name counts most. */
export const ANYWHERE_WEIGHTS: readonly number[] = [10, 2, 4, 3, 1];
/** Column weights of SOAP foodSearch's ranking: the name only. */
export const IN_NAME_WEIGHTS: readonly number[] = [10, 0, 0, 0, 0];

/** `bm25(foods_fts, …)` with these weights, as SQL. */
export function bm25Sql(weights: readonly number[]): string {
  return `bm25(foods_fts, ${weights.map((w) => w.toFixed(1)).join(', ')})`;
}
