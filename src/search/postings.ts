import { concat, bytesOf, narrowIds, readIds, readUint32, type Ids } from './blobs.js';
import { KINDS, coverOf, partialCover, WEIGHTS, placementOf, inName } from './ranking.js';

/**
 * A list of the foods one query word matches, in rid order, with how each matches: what the
 * fast paths (word-search.ts, early-top.ts) and the reference path read.
 *
 * `codes[i]` is `kind × 2 + (1 if the match is in the food's name)`, where the kind indexes
 * `parts` (minus the match's value: lower ranks first, as the fast paths compare) and `covers`
 * (what it adds to the coverage sums, ranking.ts). A word's stored list (one group of forms,
 * build.ts) uses the 64 placement kinds; a list made at query time for a word with several
 * matches (synonyms, corrections, a type-ahead prefix: slots.ts) has kinds of its own.
 */
export interface SlotPostings {
  readonly rids: Uint32Array;
  readonly codes: Ids;
  readonly parts: Float64Array;
  readonly covers: Uint32Array;
}

/** A word's stored list: its foods, placements and, when the word has several forms, which forms each food has. */
export interface GroupPostings extends SlotPostings {
  /** Bit f: the food has the group's form f (forms numbered as in the vocabulary); undefined when the group has one form. */
  readonly forms: Ids | undefined;
}

/** Parts and covers of the 64 placement kinds, shared by every stored list. */
export const BASE_PARTS = Float64Array.from({ length: KINDS }, (_, kind) => -WEIGHTS.placement[placementOf(kind)]!);
export const BASE_COVERS = Uint32Array.from({ length: KINDS }, (_, kind) => coverOf(kind));
/** The covers of a type-ahead completion that is not the word as typed: it counts for no whole-name bonus (ranking.ts `partialCover`). */
export const PARTIAL_COVERS = BASE_COVERS.map(partialCover);

/** A code for a kind (ranking.ts kindOf). */
export function baseCode(kind: number): number {
  return kind * 2 + (inName(kind) ? 1 : 0);
}

/** Layout: [count, forms width in bytes] (u32 each), rids (u32), codes (u8), forms (narrowest width). */
export function encodeGroupPostings(rids: Uint32Array, codes: Uint8Array, forms: Ids | undefined): Uint8Array {
  const header = Uint32Array.from([rids.length, forms === undefined ? 0 : forms.BYTES_PER_ELEMENT]);
  return concat([bytesOf(header), bytesOf(rids), codes, ...(forms === undefined ? [] : [bytesOf(forms)])]);
}

export function decodeGroupPostings(bytes: Uint8Array): GroupPostings {
  const header = readUint32(bytes.subarray(0, 8));
  const count = header[0]!;
  const width = header[1]!;
  const pad = (n: number): number => (n + 3) & ~3;
  let at = 8;
  const rids = readUint32(bytes.subarray(at, at + 4 * count));
  at += 4 * count;
  const codes = bytes.subarray(at, at + count);
  at += pad(count);
  const forms = width === 0 ? undefined : readIds(bytes.subarray(at, at + width * count), count);
  return { rids, codes, parts: BASE_PARTS, covers: BASE_COVERS, forms };
}

/**
 * The bytes of a code in a list of `kinds` kinds (a code is kind × 2 + in name): the narrowest
 * that holds them, as lists are made at query time (slots.ts) and stored (`encodeSlotPostings`).
 */
export function codeBytes(kinds: number): 1 | 2 | 4 {
  return kinds * 2 <= 0xff ? 1 : kinds * 2 <= 0xffff ? 2 : 4;
}

/** `codes` in the narrowest array its `kinds` allow (`codeBytes`). */
export function narrowCodes(codes: ArrayLike<number>, kinds: number): Ids {
  const width = codeBytes(kinds);
  return width === 1 ? Uint8Array.from(codes) : width === 2 ? Uint16Array.from(codes) : Uint32Array.from(codes);
}

/**
 * A list made at import (a prefix's rest, top-lists.ts): [count, kinds] (u32 each), rids (u32),
 * parts (i32: whole numbers), covers (u32), codes (`codeBytes(kinds)` each: one byte for the
 * stored unions at 1,000,000 foods, whose kinds number at most 46, a sixth of their bytes less
 * than at two, so more of them stay in the list cache; and read as the lists made at query
 * time are, in the same kind of array).
 */
export function encodeSlotPostings(p: SlotPostings): Uint8Array {
  const header = Uint32Array.from([p.rids.length, p.parts.length]);
  return concat([bytesOf(header), bytesOf(p.rids), bytesOf(Int32Array.from(p.parts)), bytesOf(p.covers), bytesOf(narrowCodes(p.codes, p.parts.length))]);
}

export function decodeSlotPostings(bytes: Uint8Array): SlotPostings {
  const [count, kinds] = readUint32(bytes.subarray(0, 8));
  let at = 8;
  const rids = readUint32(bytes.subarray(at, (at += 4 * count!)));
  const parts = Float64Array.from(readUint32(bytes.subarray(at, (at += 4 * kinds!))), (x) => x | 0);
  const covers = readUint32(bytes.subarray(at, (at += 4 * kinds!)));
  const codes = count === 0 ? narrowCodes([], kinds!) : readIds(bytes.subarray(at, at + codeBytes(kinds!) * count!), count!);
  return { rids, codes, parts, covers };
}

export function postingsBytes(p: SlotPostings): number {
  return p.rids.byteLength + p.codes.byteLength + ('forms' in p && p.forms !== undefined ? (p.forms as Ids).byteLength : 0);
}

/** An empty list for forms masks: `narrowIds` with the group's form count. */
export function formsArray(length: number, forms: number): Ids {
  return narrowIds(length, forms >= 32 ? 0xffffffff : 2 ** forms - 1);
}
