import { readUint32, type SearchBlobs, type SearchBlobWriter } from './blobs.js';

/**
 * Every food's folded name (its `name_key`) in name order, as UTF-8 bytes: where the run of
 * names that begin with a prefix starts and ends is then a binary search in memory instead of
 * a question to the store. Written only for a store whose names are a round trip away
 * (PostgreSQL: `buildSearchData(…, { nameKeys: true })`); the SQLite store seeks its name
 * index in process. ~25 bytes a food (24 MiB of names and 4 MiB of offsets at 1,000,000
 * generated foods).
 *
 * Bytes compare as the names do in `ORDER BY name_key` (C collation): UTF-8's byte order is
 * code point order. A key holding a NUL needs no special case: no name holds one, and a name
 * is placed against it exactly as code points order them.
 */

const KEYS = 'foods/name-keys';
const STARTS = 'foods/name-key-starts';

/** Writes the names given in name order (folded). */
export function writeNameKeys(names: readonly string[], out: SearchBlobWriter): void {
  let units = 0;
  for (const name of names) units += name.length;
  // A byte a code unit for most names: grown when the rest will not fit.
  let bytes = new Uint8Array(units + (units >>> 4) + 16);
  const starts = new Uint32Array(names.length + 1);
  const encoder = new TextEncoder();
  let at = 0;
  names.forEach((name, place) => {
    if (bytes.length - at < name.length * 3) {
      const grown = new Uint8Array(Math.max(bytes.length * 2, at + name.length * 3));
      grown.set(bytes.subarray(0, at));
      bytes = grown;
    }
    at += encoder.encodeInto(name, bytes.subarray(at)).written;
    starts[place + 1] = at;
  });
  out.put(KEYS, bytes.subarray(0, at));
  out.put(STARTS, new Uint8Array(starts.buffer));
}

export class NameKeys {
  private readonly encoder = new TextEncoder();

  private constructor(private readonly bytes: Uint8Array, private readonly starts: Uint32Array) {}

  /** The names of the version, or undefined when its search data was written without them. */
  static load(blobs: SearchBlobs): NameKeys | undefined {
    const bytes = blobs.get(KEYS);
    const starts = blobs.get(STARTS);
    return bytes === undefined || starts === undefined ? undefined : new NameKeys(bytes, readUint32(starts));
  }

  /** The place of the first food whose folded name is `>= key` (the food count when none is). */
  firstPlaceFrom(key: string): number {
    const wanted = this.encoder.encode(key);
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareAt(mid, wanted) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The name at `place` against `key`, bytewise: negative when it sorts first. */
  private compareAt(place: number, key: Uint8Array): number {
    const from = this.starts[place]!;
    const length = this.starts[place + 1]! - from;
    const n = Math.min(length, key.length);
    for (let i = 0; i < n; i++) {
      const d = this.bytes[from + i]! - key[i]!;
      if (d !== 0) return d;
    }
    return length - key.length;
  }
}
