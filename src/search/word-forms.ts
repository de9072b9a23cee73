import pluralize from 'pluralize';

/**
 * English word forms (contract C3, Matching): a query word matches the words that have the
 * same English singular form, regular plurals (`apples`, `berries`, `tomatoes`, `peaches`,
 * `loaves`) and the common irregular ones (`leaves`, `potatoes`), and nothing else: `cooked`
 * is not `cook`, `appl` is not `apple`.
 *
 * The singular form is pluralize's (a maintained rule set with irregular and uncountable
 * words: `glass`, `hummus`, `asparagus`, `couscous`, `swiss` stay themselves). Its rules
 * cannot tell `berries` (berry) from `brownies` (brownie) or `quiches` (quiche), so the
 * catalogue's own vocabulary settles those: a word ending in `s` is the plural of the same word
 * without it when the catalogue has that word too (`brownies` and `brownie`). Both sides use the
 * same rules: the importer groups the vocabulary's words by form (`FormGroups`), a query word
 * finds its group through `formKeys`.
 */

/** Words shorter than this, or with a character that is not a letter, are their own form. */
const MIN_LETTERS = 4;
const LETTERS = /^\p{L}+$/u;

/**
 * Singular forms already worked out. pluralize tries dozens of regular expressions on a word,
 * and planning a query asks for each word's form several times (its group, then every phrase
 * starting at it in the synonym list): without the memo, 4-5 % of the engine's CPU on cold
 * searches at 1,000,000 foods. Bounded in entries and in a word's length, so that hostile
 * queries cannot grow it; cleared when full.
 */
const memo = new Map<string, string>();
const MEMO_ENTRIES = 8192;
const MEMO_WORD_LENGTH = 40;

/** The word's singular form as pluralize gives it; numbers, short words and mixed words are their own. */
export function singular(word: string): string {
  if (word.length < MIN_LETTERS) return word;
  const known = memo.get(word);
  if (known !== undefined) return known;
  if (!LETTERS.test(word)) return word;
  const form = pluralize.singular(word);
  if (word.length <= MEMO_WORD_LENGTH) {
    if (memo.size >= MEMO_ENTRIES) memo.clear();
    memo.set(word, form);
  }
  return form;
}

/** `word` without its final `s`, when it can be a plural of that (the vocabulary decides). */
export function withoutS(word: string): string | undefined {
  return word.length >= MIN_LETTERS && word.endsWith('s') && !word.endsWith('ss') && LETTERS.test(word) ? word.slice(0, -1) : undefined;
}

/**
 * The vocabulary's words grouped by form: each group is the words of one singular form. Built
 * by the importer from every distinct word; a group is numbered by its position in `groups`.
 */
export class FormGroups {
  /** Union-find over singular keys. */
  private readonly parent = new Map<string, string>();

  private find(key: string): string {
    let root = key;
    for (let up = this.parent.get(root); up !== undefined && up !== root; up = this.parent.get(root)) root = up;
    // Path compression: later finds are one step.
    for (let at = key; at !== root;) {
      const next = this.parent.get(at)!;
      this.parent.set(at, root);
      at = next;
    }
    return root;
  }

  private union(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra === rb) return;
    // The smaller key leads, so the result does not depend on the order words came in.
    if (ra < rb) this.parent.set(rb, ra);
    else this.parent.set(ra, rb);
  }

  /** Groups `words` (distinct); returns each word's group number and each group's keys. */
  static group(words: readonly string[]): { groupOf: Uint32Array; keys: string[][] } {
    const forms = new FormGroups();
    const present = new Set(words);
    const keyOf = words.map((w) => singular(w));
    for (const key of keyOf) if (!forms.parent.has(key)) forms.parent.set(key, key);
    words.forEach((word, i) => {
      const shorter = withoutS(word);
      if (shorter !== undefined && present.has(shorter)) forms.union(keyOf[i]!, singular(shorter));
    });
    const number = new Map<string, number>();
    const keys: string[][] = [];
    const groupOf = new Uint32Array(words.length);
    // Groups numbered in the order of their smallest key, so the numbering is reproducible.
    const roots = [...new Set(keyOf.map((k) => forms.find(k)))].sort();
    roots.forEach((root, i) => {
      number.set(root, i);
      keys.push([]);
    });
    for (const key of forms.parent.keys()) keys[number.get(forms.find(key))!]!.push(key);
    for (const list of keys) list.sort();
    words.forEach((_, i) => (groupOf[i] = number.get(forms.find(keyOf[i]!))!));
    return { groupOf, keys };
  }
}

/**
 * Where a query word's forms are found in a vocabulary: its singular key, and the surface words
 * that are its plural or singular by the vocabulary rule (`brownie` finds `brownies`).
 */
export function formKeys(word: string): { key: string; surface: readonly string[] } {
  const surface: string[] = [];
  const longer = `${word}s`;
  if (withoutS(longer) === word) surface.push(longer);
  const shorter = withoutS(word);
  if (shorter !== undefined) surface.push(shorter);
  return { key: singular(word), surface };
}
