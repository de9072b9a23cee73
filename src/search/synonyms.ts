import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fold } from '../domain/text.js';
import { foldedWords } from './food-text.js';
import { singular } from './word-forms.js';

/**
 * The food synonym list (contract C3, Matching): a query word, or a phrase of several, also
 * matches its synonyms. One file, in the format Solr and Elasticsearch use for synonyms, which
 * operators may already know:
 *
 *   # a comment
 *   aubergine, eggplant                    every one matches every other (both directions)
 *   soda => carbonated beverage, soft drink  the left side matches the right, not back
 *
 * Terms are words or phrases; case, diacritics, punctuation and word forms do not matter
 * (`Hot dogs` is `hot dog`). A phrase on the right matches a food that has all its words. The
 * list that ships with the service is `synonyms.txt` beside this file (docs/search.md); the
 * `--synonyms` setting names the files to use instead, `default` standing for that one.
 */

/** The shipped list: a source file (tsc copies no .txt), found from dist/src/search or src/search. */
export const DEFAULT_SYNONYMS = fileURLToPath(new URL('../../../src/search/synonyms.txt', import.meta.url));

export class SynonymError extends Error {}

/** A phrase as the list compares them: each word's singular form, joined by spaces. */
export function phraseKey(words: readonly string[]): string {
  return words.map((w) => singular(w)).join(' ');
}

function unorderedKey(words: readonly string[]): string {
  return words.map((w) => singular(w)).sort().join(' ');
}

export class Synonyms {
  /** Phrase key → the phrases it also matches, each as its words. */
  private readonly targets = new Map<string, string[][]>();
  /** Phrases of several words by their words in sorted order → the phrases they also match. */
  private readonly unordered = new Map<string, string[][]>();
  /** The longest left-hand phrase, in words. */
  longest = 0;

  static readonly none = new Synonyms();

  /** Parses the text of a synonym file; `source` names it in errors. */
  static parse(text: string, source = 'synonyms'): Synonyms {
    const list = new Synonyms();
    list.add(text, source);
    return list;
  }

  /** Reads the files in order, `default` standing for the shipped list. */
  static load(paths: readonly string[]): Synonyms {
    const list = new Synonyms();
    for (const path of paths) {
      const file = path === 'default' ? DEFAULT_SYNONYMS : path;
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (error) {
        throw new SynonymError(`cannot read the synonym file ${file}: ${(error as Error).message}`);
      }
      list.add(text, file);
    }
    return list;
  }

  private add(text: string, source: string): void {
    text.split(/\r?\n/).forEach((raw, i) => {
      const line = raw.replace(/#.*$/, '').trim();
      if (line === '') return;
      const where = `${source}:${i + 1}`;
      const terms = (side: string): string[][] => side.split(',').map((term) => {
        const words = foldedWords(fold(term));
        if (words.length === 0) throw new SynonymError(`${where}: an empty term in '${raw.trim()}'`);
        return words;
      });
      const arrow = line.split('=>');
      if (arrow.length > 2) throw new SynonymError(`${where}: more than one '=>' in '${raw.trim()}'`);
      if (arrow.length === 2) {
        const to = terms(arrow[1]!);
        for (const from of terms(arrow[0]!)) this.link(from, to);
        return;
      }
      const group = terms(line);
      if (group.length < 2) throw new SynonymError(`${where}: a line needs two terms or more (or 'a => b'): '${raw.trim()}'`);
      for (const from of group) this.link(from, group.filter((t) => t !== from));
    });
  }

  private link(phrase: readonly string[], to: readonly string[][]): void {
    // A query's words are searched once each (plan.ts distinctWords): `mahi mahi` arrives as `mahi`.
    const from = [...new Set(phrase)];
    const key = phraseKey(from);
    let list = this.targets.get(key);
    if (list === undefined) this.targets.set(key, (list = []));
    for (const target of to) {
      const targetKey = phraseKey(target);
      if (targetKey !== key && !list.some((t) => phraseKey(t) === targetKey)) list.push([...target]);
    }
    this.longest = Math.max(this.longest, from.length);
    if (from.length > 1) {
      const sorted = unorderedKey(from);
      const known = this.unordered.get(sorted) ?? [];
      for (const target of list) if (!known.some((t) => phraseKey(t) === phraseKey(target))) known.push(target);
      this.unordered.set(sorted, known);
    }
  }

  /** The phrases a phrase of the list with these words in any order also matches (`coffee black` for `black coffee`). */
  ofAnyOrder(words: readonly string[]): readonly string[][] {
    return this.unordered.get(unorderedKey(words)) ?? [];
  }

  /** The phrases `words` (one or more query words) also matches; empty when none. */
  of(words: readonly string[]): readonly string[][] {
    return this.targets.get(phraseKey(words)) ?? [];
  }

  get size(): number {
    return this.targets.size;
  }
}
