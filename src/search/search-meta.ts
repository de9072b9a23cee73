import { envInteger } from '../config.js';

/**
 * Increments whenever the blobs' layout or meaning changes: a store whose data has another
 * format builds it again (README.md, "Versions").
 */
export const SEARCH_DATA_FORMAT = 3;

/** The first pages stored for common words and prefixes reach this deep (top-lists.ts). */
export const TOP_DEPTH = 1000;

/**
 * Words and type-ahead prefixes that at least this many foods match (default 2,000) get their
 * first TOP_DEPTH foods stored: ranking their matches at request time would cost more.
 * FOODLOOKUP_RANKED_TOP_MIN changes it (tests use small catalogues).
 */
export function topMinFoods(): number {
  return envInteger('FOODLOOKUP_RANKED_TOP_MIN', 1, 2000);
}

/**
 * A slot whose choices hold more foods than this (default 50,000) is wide: a type-ahead prefix's
 * is stored as its common words' lists and one list of the rest (top-lists.ts `union/p…`),
 * and is never made whole at query time. FOODLOOKUP_WIDE_SLOT changes it (tests use small
 * catalogues).
 */
export function wideSlotFoods(): number {
  return envInteger('FOODLOOKUP_WIDE_SLOT', 0, 50_000);
}

/** The `meta` blob: written last, so a store that has it has the rest. */
export interface SearchMeta {
  readonly format: number;
  readonly ranking: number;
  readonly foods: number;
  readonly ridLimit: number;
  readonly words: number;
  readonly groups: number;
  readonly brandLimit: number;
  readonly categoryLimit: number;
  readonly tagLimit: number;
  readonly topDepth: number;
}
