/**
 * The search data travels to and from a store as named binary blobs (README.md in this folder:
 * the store interface). These helpers write typed arrays and word lists as bytes and read them
 * back; a store may hand back any Uint8Array (SQLite's are often unaligned views).
 */

/** Where the search data is kept between an import and the processes that search it. */
export interface SearchBlobs {
  /** The blob of that name, or undefined when there is none. */
  get(name: string): Uint8Array | undefined;
}

/** What an import writes: every blob of the new version (the store drops the old ones first). */
export interface SearchBlobWriter {
  put(name: string, bytes: Uint8Array): void;
}

/** Blobs kept in memory: search data built where no store keeps it (records' names; an older database open read-only). */
export class MemoryBlobs implements SearchBlobs, SearchBlobWriter {
  private readonly blobs = new Map<string, Uint8Array>();

  put(name: string, bytes: Uint8Array): void {
    this.blobs.set(name, bytes.slice());
  }

  get(name: string): Uint8Array | undefined {
    return this.blobs.get(name);
  }
}

export function bytesOf(array: ArrayBufferView): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/** Typed arrays need aligned memory: a copy when the store's bytes are not. */
function aligned(bytes: Uint8Array, width: number): { buffer: ArrayBuffer; offset: number } {
  if (bytes.byteOffset % width === 0) return { buffer: bytes.buffer as ArrayBuffer, offset: bytes.byteOffset };
  const copy = new Uint8Array(bytes);
  return { buffer: copy.buffer, offset: 0 };
}

export function readUint32(bytes: Uint8Array): Uint32Array {
  const { buffer, offset } = aligned(bytes, 4);
  return new Uint32Array(buffer, offset, bytes.byteLength >>> 2);
}

export function readInt16(bytes: Uint8Array): Int16Array {
  const { buffer, offset } = aligned(bytes, 2);
  return new Int16Array(buffer, offset, bytes.byteLength >>> 1);
}

export type Ids = Uint8Array | Uint16Array | Uint32Array;

/** An array of small non-negative integers in the narrowest width that holds `max`. */
export function narrowIds(length: number, max: number): Ids {
  return max < 0x100 ? new Uint8Array(length) : max < 0x10000 ? new Uint16Array(length) : new Uint32Array(length);
}

/** Reads back `narrowIds`: the width is the byte length over the count. */
export function readIds(bytes: Uint8Array, count: number): Ids {
  const width = count === 0 ? 1 : bytes.byteLength / count;
  const { buffer, offset } = aligned(bytes, width === 3 ? 1 : width);
  if (width === 1) return new Uint8Array(buffer, offset, count);
  if (width === 2) return new Uint16Array(buffer, offset, count);
  if (width === 4) return new Uint32Array(buffer, offset, count);
  throw new Error(`stored id list of ${bytes.byteLength} bytes does not hold ${count} ids`);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Words (without newlines) as one UTF-8 text, one a line. */
export function wordsBlob(words: readonly string[]): Uint8Array {
  return encoder.encode(words.join('\n'));
}

export function readWords(bytes: Uint8Array): string[] {
  return bytes.byteLength === 0 ? [] : decoder.decode(bytes).split('\n');
}

export function jsonBlob(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

export function readJson<T>(bytes: Uint8Array): T {
  return JSON.parse(decoder.decode(bytes)) as T;
}

/** Concatenates byte arrays, each padded to 4 bytes so typed arrays can view them in place. */
export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const padded = (n: number): number => (n + 3) & ~3;
  const out = new Uint8Array(parts.reduce((sum, p) => sum + padded(p.byteLength), 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += padded(part.byteLength);
  }
  return out;
}
