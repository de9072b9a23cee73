import type { QueryWord } from '../domain/text.js';
import { ALL_FORMS, type Alternative, type Choice, type Slot, type Term } from './slots.js';
import { MAX_QUERY_WORDS, WEIGHTS, commonnessOffset } from './ranking.js';
import type { Synonyms } from './synonyms.js';
import { editsAllowed } from './typos.js';
import type { Vocabulary } from './vocabulary.js';

/**
 * A query's words resolved against a vocabulary into slots (slots.ts), with the contract's
 * Matching rules (C3), in this order for each word:
 * - its word forms: the vocabulary's group of words with the same singular (word-forms.ts);
 * - its synonyms and those of phrases it begins (synonyms.ts), the longest phrase first;
 * - when neither matches anything and the word may be corrected (typos.ts: 5 letters or more,
 *   no digit, not a prefix), the vocabulary's words within its edits;
 * - a word marked `*` (type-ahead): every word it begins.
 * Corrections are reported as the response's `metadata.corrections`.
 */

/** A corrected word and the words it was matched as, nearest first. */
export type { Correction } from '../store/catalog-store.js';
import type { Correction } from '../store/catalog-store.js';

export interface Plan {
  readonly slots: readonly Slot[];
  readonly corrections: readonly Correction[];
  /** Some word matches nothing: no food matches the query. */
  readonly matchesNothing: boolean;
}

export interface PlanOptions {
  /** Names only (SOAP foodSearch): a word matches only where it is in some food's name, and corrects to such words. */
  readonly nameOnly?: boolean;
  /** Phrases of the synonym list also match their words in another order (a query that matched nothing as typed). */
  readonly anyOrder?: boolean;
}

function groupTerm(groups: readonly number[]): Term | undefined {
  return groups.length === 0 ? undefined : { choices: groups.map((group): Choice => ({ group, forms: ALL_FORMS, offset: 0 })) };
}

/** A stable key for equal slots. */
function slotKey(alternatives: readonly Alternative[]): string {
  return JSON.stringify(alternatives.map((a) => [a.offset, a.words, a.terms.map((t) => t.choices.map((c) => [c.group, c.forms, c.offset, c.partial === true]))]));
}

/** The query's words, each once (a `*` word apart from the same word whole). */
export function distinctWords(words: readonly QueryWord[]): QueryWord[] {
  const seen = new Set<string>();
  return words.filter((w) => {
    const key = `${w.text}${w.prefix ? '*' : ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Why a query cannot be searched, when it has more different words than the score can count
 * (MAX_QUERY_WORDS: coverage is summed a byte a segment); every word must match, so none may be
 * left out.
 */
export function tooManyWords(words: readonly QueryWord[]): string | undefined {
  return distinctWords(words).length > MAX_QUERY_WORDS ? `at most ${MAX_QUERY_WORDS} different words` : undefined;
}

export function planQuery(words: readonly QueryWord[], vocabulary: Vocabulary, synonyms: Synonyms, options: PlanOptions = {}): Plan {
  const nameOnly = options.nameOnly ?? false;
  // A group matches something: any food has it (in the name, for names only).
  const live = (group: number): boolean => (nameOnly ? vocabulary.groupNamed[group]! > 0 : vocabulary.groupFoods[group]! > 0);
  const liveGroups = (word: string): number[] => vocabulary.groupsOf(word).filter(live);
  // Longer queries are refused where they are read (tooManyWords): a word left out would match more than asked.
  const unique = distinctWords(words).slice(0, MAX_QUERY_WORDS);

  const slots: Slot[] = [];
  const corrections: Correction[] = [];
  let matchesNothing = unique.length === 0;
  const push = (alternatives: Alternative[], prefix?: string): void => {
    if (alternatives.length === 0) {
      matchesNothing = true;
      return;
    }
    slots.push({ key: slotKey(alternatives), alternatives, ...(prefix === undefined ? {} : { prefix }) });
  };
  /** A synonym's target phrase as an alternative standing for `count` query words; undefined when a word of it is not in the catalogue. */
  const synonymAlternative = (target: readonly string[], count: number): Alternative | undefined => {
    const terms: Term[] = [];
    for (const word of target) {
      const term = groupTerm(liveGroups(word));
      if (term === undefined) return undefined;
      terms.push(term);
    }
    return { terms, offset: WEIGHTS.synonym * count, words: count };
  };

  for (let i = 0; i < unique.length;) {
    const word = unique[i]!;
    if (word.prefix) {
      push(prefixAlternatives(word.text, vocabulary, nameOnly, unique.length === 1), nameOnly ? undefined : word.text);
      i++;
      continue;
    }
    // The longest phrase starting here that the synonym list knows (type-ahead words end phrases).
    let span = 0;
    let targets: readonly string[][] = [];
    for (let n = Math.min(synonyms.longest, unique.length - i); n >= 1; n--) {
      const phrase = unique.slice(i, i + n);
      if (phrase.some((w) => w.prefix)) continue;
      const texts = phrase.map((w) => w.text);
      let found = synonyms.of(texts);
      if (found.length === 0 && n > 1 && options.anyOrder === true) found = synonyms.ofAnyOrder(texts);
      if (found.length > 0) {
        span = n;
        targets = found;
        break;
      }
    }
    const through = targets.map((t) => synonymAlternative(t, Math.max(span, 1))).filter((a) => a !== undefined);
    if (span > 1) {
      // The phrase's own words, each as typed, are one alternative; its synonyms the others.
      const own = unique.slice(i, i + span).map((w) => groupTerm(liveGroups(w.text)));
      const literal: Alternative[] = own.every((t) => t !== undefined) ? [{ terms: own, offset: 0, words: span }] : [];
      push([...literal, ...through]);
      i += span;
      continue;
    }
    const own = groupTerm(liveGroups(word.text));
    const alternatives: Alternative[] = own === undefined ? [] : [{ terms: [own], offset: 0, words: 1 }];
    alternatives.push(...through);
    if (alternatives.length === 0 && editsAllowed(word.text) > 0) {
      const found = vocabulary.corrections(word.text, (w) => !nameOnly || vocabulary.inName[w] === 1);
      if (found.length > 0) {
        // A correction then matches as if typed, with its word forms (`avacado` finds `Avocados,
        // raw` through `avocado`); a group reached by several words keeps its nearest.
        const choices = new Map<number, Choice>();
        for (const { word: w, distance } of found) {
          const group = vocabulary.groupOf[w]!;
          const offset = WEIGHTS.perEdit * distance + commonnessOffset(vocabulary.groupFoods[group]!);
          if ((choices.get(group)?.offset ?? -Infinity) < offset) choices.set(group, { group, forms: ALL_FORMS, offset });
        }
        alternatives.push({ terms: [{ choices: [...choices.values()] }], offset: 0, words: 1 });
        corrections.push({ word: word.text, as: found.map((f) => vocabulary.words[f.word]!) });
      }
    }
    push(alternatives);
    i++;
  }
  const distinct = new Map<string, Slot>();
  for (const slot of slots) if (!distinct.has(slot.key)) distinct.set(slot.key, slot);
  return { slots: [...distinct.values()], corrections, matchesNothing };
}

/** The bit of a group's form number in a posting's forms (forms past 31 share the last bit). */
export function formBit(form: number): number {
  return (1 << Math.min(form, 31)) >>> 0;
}

/**
 * A type-ahead word: every word it begins, each group once with the forms that begin with it.
 * `alone` (the query's only word): a group without the word as typed is a partial completion,
 * which names no whole food (ranking.ts `partialCover`). Beside other words it is not: there
 * the whole-name bonus says the words and the completion cover the name (`cheddar ch*`,
 * *Cheese, cheddar*), and without it a page's foods stood so little above the rest that
 * bound-first.ts read 3-5 times the foods (`fat co*`, `and sal*` at 1,000,000 foods).
 */
export function prefixAlternatives(prefix: string, vocabulary: Vocabulary, nameOnly: boolean, alone = false): Alternative[] {
  const [from, to] = vocabulary.prefixRange(prefix);
  const forms = new Map<number, number>();
  for (let w = from; w < to; w++) {
    if (nameOnly && vocabulary.inName[w] !== 1) continue;
    const group = vocabulary.groupOf[w]!;
    forms.set(group, ((forms.get(group) ?? 0) | formBit(vocabulary.formOf[w]!)) >>> 0);
  }
  if (forms.size === 0) return [];
  const typed = vocabulary.wordNumber(prefix);
  const whole = typed === undefined ? undefined : vocabulary.groupOf[typed];
  const choices = [...forms].sort((a, b) => a[0] - b[0]).map(([group, bits]): Choice => ({
    group,
    // Every form of the group begins with the prefix: no need to look at forms.
    forms: bits === allFormsOf(vocabulary, group) ? ALL_FORMS : bits,
    offset: commonnessOffset(vocabulary.groupFoods[group]!),
    ...(alone && group !== whole ? { partial: true } : {}),
  }));
  return [{ terms: [{ choices }], offset: 0, words: 1 }];
}

function allFormsOf(vocabulary: Vocabulary, group: number): number {
  let bits = 0;
  for (const w of vocabulary.wordsOf(group)) bits = (bits | formBit(vocabulary.formOf[w]!)) >>> 0;
  return bits;
}
