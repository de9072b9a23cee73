import { lowerBound } from './word-search.js';

/**
 * Typo tolerance (contract C3): a word of 5 or more letters that matches nothing is matched by
 * the vocabulary's words within one edit of it, two from 9 letters, an edit being an insertion,
 * a deletion, a substitution or a swap of two adjacent letters (optimal string alignment).
 *
 * Candidates come from a deletion index (SymSpell's symmetric deletes): two words within d
 * edits share a string obtained by deleting at most d characters from each, so the importer
 * stores, for every vocabulary word, a hash of each string it gives by deleting up to one
 * character (words of 4 letters or more) or two (7 or more: the shortest that can be two
 * edits from a 9-letter word), and a query word looks up its own deletions. Every candidate is
 * checked with the real distance, so hash collisions cost a check, never a wrong match.
 */
/** The shortest corrected word, and the length from which two edits are allowed. */
export const MIN_TYPO_LETTERS = 5;
export const TWO_EDITS_FROM = 9;

/** Edits allowed for a query word of this length (0: never corrected). */
export function editsAllowed(word: string): number {
  if (word.length < MIN_TYPO_LETTERS || /\p{N}/u.test(word)) return 0;
  return word.length >= TWO_EDITS_FROM ? 2 : 1;
}

/** Optimal string alignment distance, or `max + 1` as soon as it must exceed `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const n = b.length;
  let before = new Array<number>(n + 1).fill(0);
  let previous = Array.from({ length: n + 1 }, (_, j) => j);
  let current = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) {
        d = Math.min(d, before[j - 2]! + 1);
      }
      current[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    [before, previous, current] = [previous, current, before];
  }
  return previous[n]!;
}

/** FNV-1a over UTF-16 code units: 32 bits, as unsigned. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The distinct strings made by deleting up to `depth` characters (the word itself included). */
export function deletions(word: string, depth: number): Set<string> {
  const out = new Set<string>([word]);
  let level = [word];
  for (let d = 0; d < depth; d++) {
    const next: string[] = [];
    for (const w of level) {
      for (let i = 0; i < w.length; i++) {
        const shorter = w.slice(0, i) + w.slice(i + 1);
        if (!out.has(shorter)) {
          out.add(shorter);
          next.push(shorter);
        }
      }
    }
    level = next;
  }
  return out;
}

/** Deletions the index holds for a vocabulary word: what a corrected word can reach it through. */
export function indexedDepth(word: string): number {
  if (/\p{N}/u.test(word)) return 0;
  return word.length >= TWO_EDITS_FROM - 2 ? 2 : word.length >= MIN_TYPO_LETTERS - 1 ? 1 : 0;
}

/** The deletion index as stored: hashes ascending, each with a word number. */
export interface DeletionIndex {
  readonly hashes: Uint32Array;
  readonly words: Uint32Array;
}

export function buildDeletionIndex(words: readonly string[]): DeletionIndex {
  if (words.length >= WORD_SPAN) throw new Error(`a vocabulary of ${words.length} words is more than the deletion index numbers`);
  // Each entry as hash × WORD_SPAN + word number, exact in a double: one numeric sort.
  const entries: number[] = [];
  words.forEach((word, i) => {
    const depth = indexedDepth(word);
    if (depth === 0) return;
    for (const d of deletions(word, depth)) entries.push(hash32(d) * WORD_SPAN + i);
  });
  const sorted = Float64Array.from(entries).sort();
  const hashes = new Uint32Array(sorted.length);
  const ids = new Uint32Array(sorted.length);
  for (let i = 0; i < sorted.length; i++) {
    hashes[i] = Math.floor(sorted[i]! / WORD_SPAN);
    ids[i] = sorted[i]! % WORD_SPAN;
  }
  return { hashes, words: ids };
}

/** Word numbers stay below this (2^21): with a 32-bit hash, an entry is below 2^53. */
const WORD_SPAN = 2 ** 21;

/**
 * The vocabulary's words within the allowed edits of `word`, each with its distance, nearest
 * first then in vocabulary order; `accept` limits the candidates (a resource's own words).
 */
export function corrections(
  word: string, index: DeletionIndex, vocabulary: readonly string[], accept: (wordNumber: number) => boolean = () => true,
): { word: number; distance: number }[] {
  const max = editsAllowed(word);
  if (max === 0) return [];
  const seen = new Set<number>();
  const found: { word: number; distance: number }[] = [];
  for (const d of deletions(word, max)) {
    const h = hash32(d);
    for (let i = lowerBound(index.hashes, 0, index.hashes.length, h); i < index.hashes.length && index.hashes[i] === h; i++) {
      const w = index.words[i]!;
      if (seen.has(w)) continue;
      seen.add(w);
      if (!accept(w)) continue;
      const distance = editDistance(word, vocabulary[w]!, max);
      if (distance <= max && distance > 0) found.push({ word: w, distance });
    }
  }
  return found.sort((a, b) => a.distance - b.distance || a.word - b.word);
}
