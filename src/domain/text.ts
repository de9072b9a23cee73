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

/**
 * Orders strings as PostgreSQL's COLLATE "C" and SQLite's BINARY do: by UTF-8 bytes, that is by
 * code point. JavaScript's `<` compares UTF-16 units, which puts U+10000 and above (surrogates,
 * 0xD800–0xDFFF) before U+E000–U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  let x = a.charCodeAt(i);
  let y = b.charCodeAt(i);
  if (x >= 0xd800 && y >= 0xd800) {
    // Surrogates after everything else of the basic plane, U+F800–U+FFFF included (shifted by
    // 0x2000 they would land among those).
    x = x < 0xe000 ? x + 0x10000 : x;
    y = y < 0xe000 ? y + 0x10000 : y;
  }
  return x - y;
}
