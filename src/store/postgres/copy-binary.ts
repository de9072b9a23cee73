import type { Readable } from 'node:stream';

/**
 * PostgreSQL's COPY binary format, read (COPY … TO STDOUT (FORMAT binary)): each row's fields as
 * the bytes PostgreSQL stores. pg reads every value of a SELECT as text — a bytea as hex twice
 * its size, decoded back — and its binary results are decoded as UTF-8 text, which breaks bytes
 * that are not; COPY's binary format is the one way out of PostgreSQL with the bytes as they are.
 *
 * The format: an 11-byte signature, a 32-bit flags field and a header extension (a 32-bit length
 * and its bytes); then each row as a 16-bit count of fields, each field a 32-bit length (-1 for
 * NULL) and its bytes; a count of -1 ends the data. Integers are big-endian.
 */

export const COPY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const EMPTY = Buffer.alloc(0);

/** Bytes arrived in chunks, read from the front; a value is copied out once, whatever chunks it spans. */
class Chunks {
  /** Chunks not yet read whole, from `first` on: a large value may span hundreds of thousands of small chunks, and shifting each off the array's front was quadratic. */
  private chunks: Buffer[] = [];
  private first = 0;
  private head = 0;
  available = 0;

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (this.first > 1024 && this.first * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.first);
      this.first = 0;
    }
    this.chunks.push(chunk);
    this.available += chunk.length;
  }

  /** The next `n` bytes (n ≤ available) in a new array of their own (aligned, nothing else kept alive). */
  take(n: number): Uint8Array {
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      const chunk = this.chunks[this.first]!;
      const count = Math.min(n - filled, chunk.length - this.head);
      out.set(chunk.subarray(this.head, this.head + count), filled);
      filled += count;
      this.head += count;
      if (this.head === chunk.length) {
        // Released at once: what was read is not kept alive until the next compaction.
        this.chunks[this.first++] = EMPTY;
        this.head = 0;
      }
    }
    this.available -= n;
    return out;
  }

  int16(): number {
    const b = this.take(2);
    return (((b[0]! << 8) | b[1]!) << 16) >> 16;
  }

  int32(): number {
    const b = this.take(4);
    return ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) | 0;
  }
}

/** The rows of a COPY … TO STDOUT (FORMAT binary) stream, each as its fields' bytes (null for NULL). */
export async function* copyBinaryRows(stream: Readable): AsyncGenerator<(Uint8Array | null)[]> {
  const input = new Chunks();
  let header: 'signature' | 'extension' | 'done' = 'signature';
  let extension = 0;
  let row: (Uint8Array | null)[] | undefined;
  let fieldsLeft = 0;
  let valueLength: number | undefined;
  let ended = false;
  for await (const chunk of stream) {
    input.push(chunk as Buffer);
    if (header === 'signature') {
      if (input.available < COPY_SIGNATURE.length + 8) continue;
      if (!COPY_SIGNATURE.equals(input.take(COPY_SIGNATURE.length))) throw new Error('COPY output is not in the binary format (no PGCOPY signature)');
      input.int32();
      extension = input.int32();
      header = 'extension';
    }
    if (header === 'extension') {
      if (input.available < extension) continue;
      input.take(extension);
      header = 'done';
    }
    for (;;) {
      if (ended) {
        // Nothing follows the trailer.
        if (input.available > 0) throw new Error('COPY binary output goes on after its end');
        break;
      }
      if (row === undefined) {
        if (input.available < 2) break;
        const count = input.int16();
        if (count === -1) {
          ended = true;
          continue;
        }
        if (count < 0) throw new Error(`COPY binary output: a row of ${count} fields`);
        row = [];
        fieldsLeft = count;
      }
      if (fieldsLeft > 0 && valueLength === undefined) {
        if (input.available < 4) break;
        valueLength = input.int32();
        if (valueLength < -1) throw new Error(`COPY binary output: a field of ${valueLength} bytes`);
      }
      if (fieldsLeft > 0) {
        if (valueLength! > input.available) break;
        row.push(valueLength === -1 ? null : input.take(valueLength!));
        valueLength = undefined;
        fieldsLeft--;
      }
      if (fieldsLeft === 0) {
        yield row;
        row = undefined;
      }
    }
  }
  if (!ended) throw new Error('COPY binary output ended before its trailer');
}
