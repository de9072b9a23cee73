/**
 * Folding for name order and matching (contract C3): Unicode lower case, compatibility
 * decomposition, combining marks removed. "Crème Brûlée" → "creme brulee".
 */
export function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
}

const WORD = /[\p{L}\p{N}]+/gu;

/** A word of an fts query: folded letters/digits; `prefix` when the user wrote `word*`. */
export interface QueryWord {
  readonly text: string;
  readonly prefix: boolean;
}

/**
 * Splits user text into fts words at every character that is not a letter or digit, so
 * quotes, operators and punctuation are never syntax. A `*` directly after a word makes it
 * a prefix term.
 */
export function queryWords(query: string): QueryWord[] {
  const folded = fold(query);
  const words: QueryWord[] = [];
  for (const match of folded.matchAll(WORD)) {
    const end = (match.index ?? 0) + match[0].length;
    words.push({ text: match[0], prefix: folded[end] === '*' });
  }
  return words;
}

/** The words of a stored text, as the index sees them. */
export function textWords(text: string): string[] {
  return fold(text).match(WORD) ?? [];
}
