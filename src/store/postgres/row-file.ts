import { readSync } from 'node:fs';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { FOOD_COLUMNS, foodRowOf, type FoodRow } from '../record-rows.js';
import { COPY_SIGNATURE } from './copy-binary.js';

/**
 * A catalogue version's food rows, copied once into a file on this replica's own disk (the
 * operator's `--row-copy-dir`), and read from there by rid: a page of a search then needs no
 * round trip to PostgreSQL, as a SQLite replica reads its pages from its own file. At 1,000,000
 * foods that round trip was most of what made a cold search on PostgreSQL slower than on SQLite
 * (bench/README).
 *
 * A version's rows never change, so the copy is never stale. The file is unlinked as soon as it
 * is created: the system frees its blocks when the descriptor is closed, also when the process
 * dies, so no crash leaves a copy behind. Its pages are the system's page cache, not the
 * process's memory; the process keeps 12 bytes a rid (where each row starts, and its length).
 */

/** The columns copied, in FoodValues' order (rid first): COPY's binary format gives each as its bytes. */
export const ROW_FILE_COLUMNS = `f.rid, ${FOOD_COLUMNS}`;
const FIELDS = 11;
/** The header: signature, flags (32 bits) and the length of the extension that follows (32 bits). */
const HEADER = COPY_SIGNATURE.length + 8;

export class RowFile {
  private closed = false;
  private scratch = Buffer.allocUnsafe(16 * 1024);

  private constructor(private readonly file: FileHandle, private readonly starts: Float64Array, private readonly lengths: Uint32Array, readonly bytes: number) {}

  /**
   * Copies the rows of a `COPY (SELECT ${ROW_FILE_COLUMNS} …) TO STDOUT (FORMAT binary)` into a
   * new file in `dir`, rids below `ridLimit`. Rejects on a malformed stream, a rid out of range, a
   * write that fails, or when `signal` aborts (the file is gone then).
   */
  static async copy(stream: Readable, dir: string, ridLimit: number, signal: AbortSignal): Promise<RowFile> {
    const path = join(dir, `foodlookup-rows-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`);
    const file = await open(path, 'wx+', 0o600);
    try {
      // The descriptor keeps the file; no name keeps it past the process.
      await unlink(path);
      const starts = new Float64Array(ridLimit);
      const lengths = new Uint32Array(ridLimit);
      let written = 0;
      let rest: Buffer | undefined;
      let header = true;
      let ended = false;
      for await (const chunk of stream) {
        signal.throwIfAborted();
        const buf: Buffer = rest === undefined ? (chunk as Buffer) : Buffer.concat([rest, chunk as Buffer]);
        rest = undefined;
        let pos = 0;
        if (header) {
          if (buf.length < HEADER || buf.length < HEADER + buf.readInt32BE(HEADER - 4)) {
            if (buf.length >= COPY_SIGNATURE.length && !COPY_SIGNATURE.equals(buf.subarray(0, COPY_SIGNATURE.length))) throw notBinary();
            rest = Buffer.from(buf);
            continue;
          }
          if (!COPY_SIGNATURE.equals(buf.subarray(0, COPY_SIGNATURE.length))) throw notBinary();
          pos = HEADER + buf.readInt32BE(HEADER - 4);
          header = false;
        }
        if (ended && pos < buf.length) throw new Error('COPY binary output goes on after its end');
        const first = pos;
        while (!ended && buf.length - pos >= 2) {
          const count = buf.readInt16BE(pos);
          if (count === -1) {
            ended = true;
            break;
          }
          if (count !== FIELDS) throw new Error(`COPY binary output: a food row of ${count} fields, not ${FIELDS}`);
          const end = rowEnd(buf, pos);
          if (end === undefined) break;
          if (buf.readInt32BE(pos + 2) !== 4) throw new Error('COPY binary output: a food rid that is not a 32-bit integer');
          const rid = buf.readInt32BE(pos + 6);
          if (!(rid >= 0 && rid < ridLimit)) throw new Error(`COPY binary output: food rid ${rid} is beyond the catalogue's ${ridLimit}`);
          starts[rid] = written + (pos - first);
          lengths[rid] = end - pos;
          pos = end;
        }
        for (let at = first; at < pos;) {
          const { bytesWritten } = await file.write(buf, at, pos - at, written);
          if (bytesWritten === 0) throw new Error('the row copy file took no bytes');
          at += bytesWritten;
          written += bytesWritten;
        }
        if (ended) {
          if (pos + 2 < buf.length) throw new Error('COPY binary output goes on after its end');
        } else if (pos < buf.length) {
          // Copied: a chunk is not kept alive for the few bytes of its last row.
          rest = Buffer.from(buf.subarray(pos));
        }
      }
      if (!ended) throw new Error('COPY binary output ended before its trailer');
      return new RowFile(file, starts, lengths, written);
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  /** The row of this rid; undefined when it is not in the file or the file is closed. Throws when the system fails to read it. */
  row(rid: number): (FoodRow & { rid: number }) | undefined {
    if (this.closed) return undefined;
    const length = rid >= 0 && rid < this.lengths.length ? this.lengths[rid]! : 0;
    if (length === 0) return undefined;
    if (this.scratch.length < length) this.scratch = Buffer.allocUnsafe(Math.max(length, 2 * this.scratch.length));
    const read = readSync(this.file.fd, this.scratch, 0, length, this.starts[rid]!);
    if (read !== length) throw new Error(`the copy of food rid ${rid} is ${read} bytes, not ${length}`);
    return decodeRow(this.scratch, rid);
  }

  /**
   * Frees the file; later reads return undefined (requests still on this version then read from
   * PostgreSQL). The handle is held until then: a FileHandle no longer referenced is closed when
   * it is collected.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.file.close().catch(() => undefined);
  }
}

function notBinary(): Error {
  return new Error('COPY output is not in the binary format (no PGCOPY signature)');
}

/** Where the row starting at `pos` ends, or undefined when `buf` does not hold all of it. */
function rowEnd(buf: Buffer, pos: number): number | undefined {
  let p = pos + 2;
  for (let f = 0; f < FIELDS; f++) {
    if (p + 4 > buf.length) return undefined;
    const n = buf.readInt32BE(p);
    // Every column of a food row is NOT NULL (schema.ts).
    if (n < 0) throw new Error('COPY binary output: a NULL in a food row');
    p += 4 + n;
    if (p > buf.length) return undefined;
  }
  return p;
}

/** A row as copied (its count of fields, then each field's length and bytes), as a FoodRow. */
function decodeRow(buf: Buffer, rid: number): FoodRow & { rid: number } {
  let p = 2;
  const text = (): string => {
    const n = buf.readInt32BE(p);
    p += 4 + n;
    return buf.toString('utf8', p - n, p);
  };
  p += 4;
  if (buf.readInt32BE(p) !== rid) throw new Error(`the copy of food rid ${rid} holds rid ${buf.readInt32BE(p)}`);
  p += 4;
  // The texts in FOOD_COLUMNS' order, then updated_at: a bigint, 8 bytes (ms times stay far below 2^53).
  const texts = [text(), text(), text(), text(), text(), text(), text(), text(), text()] as const;
  return foodRowOf([rid, ...texts, Number(buf.readBigInt64BE(p + 4))]);
}
