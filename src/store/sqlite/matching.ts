import { fold, queryWords } from '../../domain/text.js';
import type { TextMatch } from '../catalog-store.js';

/**
 * FTS5 MATCH text for user words. Each word is letters/digits only (queryWords splits at
 * everything else), so quoting it makes any user input safe: no operator, column filter
 * or unbalanced quote can reach FTS5.
 */
export function ftsExpression(words: readonly { text: string; prefix: boolean }[]): string {
  return words.map((w) => `"${w.text}"${w.prefix ? '*' : ''}`).join(' AND ');
}

/** The largest code point: `key < prefix + MAX` bounds a prefix range on an index. */
const MAX_CHAR = String.fromCodePoint(0x10ffff);

export type Matcher =
  | { readonly kind: 'none' }
  /** The query has no word: it matches nothing. */
  | { readonly kind: 'empty' }
  | {
    readonly kind: 'fts'; readonly expression: string; readonly nameExpression: string; readonly words: number;
    /** The words, in query order, when none has `*`: each is its own token in the index. */
    readonly tokens: readonly string[] | undefined;
  }
  | { readonly kind: 'prefix'; readonly key: string; readonly upper: string };

export function matcher(match: TextMatch | undefined, nameColumn = 'name'): Matcher {
  if (!match) return { kind: 'none' };
  if (match.type === 'prefix') {
    const key = fold(match.query);
    return { kind: 'prefix', key, upper: key + MAX_CHAR };
  }
  // A repeated word matches nothing more; left in, bm25 would count it twice and rank by it twice.
  const seen = new Set<string>();
  const words = queryWords(match.query).filter((w) => {
    const key = `${w.text}${w.prefix ? '*' : ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (words.length === 0) return { kind: 'empty' };
  const expression = ftsExpression(words);
  const tokens = words.some((w) => w.prefix) ? undefined : words.map((w) => w.text);
  return { kind: 'fts', expression, nameExpression: `${nameColumn} : (${expression})`, words: words.length, tokens };
}
