import type { SlotPostings } from './postings.js';

/**
 * Common words' postings as one bit per rid: whether a food has the word is a bit test, and
 * its index in the word's list a rank (the count before its block of words plus popcounts),
 * where the list itself needs a search; and which foods have it in their name, a second bit
 * per rid. Built on first use for a list's rids and kept as long as they are (WeakMaps beside
 * the postings cache, whose bound does not count them: ~8.5 bytes per 32 foods).
 */

/** Lists of at least 1 / 16 of the foods get a bitmap: 8 bytes per 32 rids, while the list holds 6 bytes a food. */
export const BITMAP_DENSITY = 16;

/**
 * 32-bit words per entry of a bitmap's rank index: a rank adds up to 7 popcounts of words in
 * the cache line its bit test has just read. A count per word was as large as the bits
 * themselves (~4.5 MiB of a worker at 1,000,000 foods, type-ahead after words); per 8 words,
 * in process, no scenario's time moved beyond the machine's spread.
 */
const RANK_BLOCK_WORDS = 8;
const RANK_BLOCK_SHIFT = 3;

/** A word's foods as one bit per rid, with the count of foods before each block of RANK_BLOCK_WORDS words: a rid's index in `rids`. */
export interface RidBitmap {
  readonly bits: Uint32Array;
  readonly before: Uint32Array;
}

// Keyed by the rids, which views of one list share (slots.ts `shifted`, `choiceList`): their codes are the list's too.
const bitmaps = new WeakMap<Uint32Array, RidBitmap>();
const nameBitmaps = new WeakMap<Uint32Array, Uint32Array>();

export function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** The list's bitmap over rids below `ridLimit`; undefined for a list too sparse to get one. */
export function bitmapOf(p: SlotPostings, ridLimit: number): RidBitmap | undefined {
  let bitmap = bitmaps.get(p.rids);
  if (bitmap === undefined && p.rids.length * BITMAP_DENSITY >= ridLimit) {
    const words = (ridLimit + 31) >>> 5;
    const bits = new Uint32Array(words);
    // Indexed, not for-of: a typed array's iterator runs 2-10x slower until the loop is
    // optimised, and a bitmap is built once per loaded list, often before that.
    const rids = p.rids;
    for (let i = 0; i < rids.length; i++) bits[rids[i]! >>> 5]! |= 1 << (rids[i]! & 31);
    const before = new Uint32Array((words + RANK_BLOCK_WORDS - 1) >>> RANK_BLOCK_SHIFT);
    let count = 0;
    for (let w = 0; w < words; w++) {
      if ((w & (RANK_BLOCK_WORDS - 1)) === 0) before[w >>> RANK_BLOCK_SHIFT] = count;
      count += popcount32(bits[w]!);
    }
    bitmap = { bits, before };
    bitmaps.set(p.rids, bitmap);
  }
  return bitmap;
}

/** The index in `bitmap`'s list of a rid the list has. */
export function rankOf(bitmap: RidBitmap, rid: number): number {
  const w = rid >>> 5;
  const bits = bitmap.bits;
  let rank = bitmap.before[w >>> RANK_BLOCK_SHIFT]!;
  for (let k = w & ~(RANK_BLOCK_WORDS - 1); k < w; k++) rank += popcount32(bits[k]!);
  return rank + popcount32(bits[w]! & ((1 << (rid & 31)) - 1));
}

/**
 * The list's foods with the word in their name (the code's low bit), one bit per rid, for a
 * list dense enough for a bitmap; undefined otherwise. ANDed, these bitmaps are a query's name
 * tier, without locating a single food.
 */
export function nameBitsOf(p: SlotPostings, ridLimit: number): Uint32Array | undefined {
  let bits = nameBitmaps.get(p.rids);
  if (bits === undefined && p.rids.length * BITMAP_DENSITY >= ridLimit) {
    const { rids, codes } = p;
    let named = 0;
    for (let i = 0; i < codes.length; i++) named += codes[i]! & 1;
    if (named === rids.length) {
      // Every food has the word in its name (a name-only list, SOAP's): the list's own bitmap.
      bits = bitmapOf(p, ridLimit)!.bits;
    } else {
      bits = new Uint32Array((ridLimit + 31) >>> 5);
      for (let i = 0; i < rids.length; i++) if ((codes[i]! & 1) !== 0) bits[rids[i]! >>> 5]! |= 1 << (rids[i]! & 31);
    }
    nameBitmaps.set(p.rids, bits);
  }
  return bits;
}
