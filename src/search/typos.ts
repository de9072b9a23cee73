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
 * From this length on, a word's corrections are found by checking the vocabulary's words of
 * about its length rather than through its deletions: two edits of an n-letter word are ~n²/2
 * strings of ~n letters to make and hash, so a request with one 1,200-letter word took 19 s and
 * held the server's thread (time as n³), where no food has a word that long.
 */
export const DELETIONS_MAX_LETTERS = 24;

/** Word numbers by length (UTF-16 code units): `words[starts[n] … starts[n + 1])` have n. */
export interface WordsByLength {
  readonly starts: Uint32Array;
  readonly words: Uint32Array;
}

export function wordsByLength(vocabulary: readonly string[]): WordsByLength {
  let longest = 0;
  for (const w of vocabulary) longest = Math.max(longest, w.length);
  const starts = new Uint32Array(longest + 2);
  for (const w of vocabulary) starts[w.length + 1]!++;
  for (let n = 0; n <= longest; n++) starts[n + 1]! += starts[n]!;
  const fill = starts.slice(0, longest + 1);
  const words = new Uint32Array(vocabulary.length);
  vocabulary.forEach((w, i) => (words[fill[w.length]!++] = i));
  return { starts, words };
}

/**
 * The vocabulary's words within the allowed edits of `word`, each with its distance, nearest
 * first then in vocabulary order; `accept` limits the candidates (a resource's own words).
 * `byLength` (from wordsByLength) answers for words past DELETIONS_MAX_LETTERS.
 */
export function corrections(
  word: string, index: DeletionIndex, vocabulary: readonly string[], accept: (wordNumber: number) => boolean = () => true,
  byLength?: () => WordsByLength,
): { word: number; distance: number }[] {
  const max = editsAllowed(word);
  if (max === 0) return [];
  const found: { word: number; distance: number }[] = [];
  const check = (w: number): void => {
    if (!accept(w)) return;
    const distance = editDistance(word, vocabulary[w]!, max);
    if (distance <= max && distance > 0) found.push({ word: w, distance });
  };
  if (word.length > DELETIONS_MAX_LETTERS) {
    // Only words at most `max` letters longer or shorter can be within `max` edits.
    const { starts, words } = byLength?.() ?? wordsByLength(vocabulary);
    const longest = starts.length - 2;
    const from = starts[Math.min(word.length - max, longest + 1)]!;
    const to = starts[Math.min(word.length + max + 1, longest + 1)]!;
    for (let i = from; i < to; i++) check(words[i]!);
  } else {
    const seen = new Set<number>();
    for (const d of deletions(word, max)) {
      const h = hash32(d);
      for (let i = lowerBound(index.hashes, 0, index.hashes.length, h); i < index.hashes.length && index.hashes[i] === h; i++) {
        const w = index.words[i]!;
        if (seen.has(w)) continue;
        seen.add(w);
        check(w);
      }
    }
  }
  return found.sort((a, b) => a.distance - b.distance || a.word - b.word);
}
