import { BASE_PARTS, PARTIAL_COVERS, narrowCodes, type GroupPostings, type SlotPostings } from './postings.js';
import { partialCover } from './ranking.js';
import { envInteger } from '../config.js';
import { BITMAP_DENSITY } from './rid-bitmaps.js';
import { seek } from './word-search.js';

/**
 * What one query word matches, as the query plan (plan.ts) resolves it: a slot. A food
 * matches the query when it matches every slot (AND).
 *
 * A slot has alternatives (the word as typed, each synonym; a phrase synonym's slot stands for
 * all the words of the phrase); an alternative has terms, all of which the food must have
 * (`carbonated beverage` is two); a term has choices, any of which will do (the groups of forms
 * a word is in; each correction of a typo; each word a type-ahead prefix completes). A choice
 * is a group of forms (word-forms.ts), restricted to some of its forms when only those match
 * (`leav*` matches `leaves`, not `leaf`).
 *
 * How a food matches a slot, for ranking: the best alternative, an alternative in the name
 * before one that is not, then the higher value. A term's value is its best choice's placement
 * value (ranking.ts) plus the choice's offset; an alternative's is its terms' mean, counted once
 * per query word it stands for, plus its offset; its coverage is its terms' sum.
 */
export const ALL_FORMS = 0xffffffff;

export interface Choice {
  readonly group: number;
  /** The forms that match: bit f for the group's form f; ALL_FORMS for every one. */
  readonly forms: number;
  readonly offset: number;
  /** A type-ahead completion that is not the word as typed: its foods' lists are seen through `choiceList`. */
  readonly partial?: boolean;
}

export interface Term {
  readonly choices: readonly Choice[];
}

export interface Alternative {
  readonly terms: readonly Term[];
  readonly offset: number;
  /** The query words it stands for. */
  readonly words: number;
}

export interface Slot {
  /** Equal slots have equal keys (a repeated word counts once). */
  readonly key: string;
  readonly alternatives: readonly Alternative[];
  /** A type-ahead word's prefix (all fields, not names only): the import may have stored the rest of its choices (top-lists.ts). */
  readonly prefix?: string;
}

/**
 * A choice of a wide slot whose stored list is read as it is, by bitmap: every form matches and
 * its group has a bitmap's density (rid-bitmaps.ts). The others are unioned into one list.
 */
export function isCommonChoice(choice: Choice, foods: number, ridLimit: number): boolean {
  return choice.forms === ALL_FORMS && foods * BITMAP_DENSITY >= ridLimit;
}

/** A slot that is one group of forms, as typed: its stored list is its postings. */
export function plainGroup(slot: Slot): number | undefined {
  if (slot.alternatives.length !== 1) return undefined;
  const alternative = slot.alternatives[0]!;
  if (alternative.terms.length !== 1 || alternative.offset !== 0 || alternative.words !== 1) return undefined;
  const choices = alternative.terms[0]!.choices;
  if (choices.length !== 1 || choices[0]!.forms !== ALL_FORMS || choices[0]!.offset !== 0 || choices[0]!.partial === true) return undefined;
  return choices[0]!.group;
}

/**
 * A slot that is one group of forms with an offset (a correction, a completion): its list is
 * the group's stored list with every value moved by the offset, so it needs no list of its own.
 */
export function shiftedGroup(slot: Slot): Choice | undefined {
  if (slot.alternatives.length !== 1) return undefined;
  const alternative = slot.alternatives[0]!;
  if (alternative.terms.length !== 1 || alternative.offset !== 0 || alternative.words !== 1) return undefined;
  const choices = alternative.terms[0]!.choices;
  if (choices.length !== 1 || choices[0]!.forms !== ALL_FORMS) return undefined;
  return choices[0];
}

/** Views of lists with partial covers, one per list: of a group's postings, of a stored union. */
const partialGroups = new WeakMap<GroupPostings, GroupPostings>();
const partialUnions = new WeakMap<SlotPostings, SlotPostings>();

/**
 * A choice's stored list as the choice matches it: the list itself, or for a partial
 * completion the same foods and codes with PARTIAL_COVERS, one view per list (derived bitmaps
 * follow the rids, rid-bitmaps.ts, so views share them).
 */
export function choiceList(p: GroupPostings, choice: Choice): GroupPostings {
  if (choice.partial !== true) return p;
  let view = partialGroups.get(p);
  if (view === undefined) partialGroups.set(p, (view = { ...p, covers: PARTIAL_COVERS }));
  return view;
}

/**
 * A stored list of a prefix's completions (top-lists.ts), made as beside other words, for the
 * `choices` it stands for: itself, seen with partial covers when every one is partial (the
 * best entry of each food is then the same: a choice's cover counts the name exactly when the
 * entry is in the name), undefined when only some are.
 */
export function storedForChoices(list: SlotPostings | undefined, choices: readonly Choice[]): SlotPostings | undefined {
  if (list === undefined) return undefined;
  let partial = 0;
  for (const c of choices) if (c.partial === true) partial++;
  if (partial === 0) return list;
  if (partial < choices.length) return undefined;
  let view = partialUnions.get(list);
  if (view === undefined) partialUnions.set(list, (view = { ...list, covers: list.covers.map(partialCover) }));
  return view;
}

const shiftedParts = new Map<number, Float64Array>();
/** The views of a stored list, kept as long as it is: its derived bitmaps (rid-bitmaps.ts) are kept with a view. */
const views = new WeakMap<GroupPostings, Map<number, SlotPostings>>();

/** A stored list seen through an offset (shiftedGroup): the same foods and codes, every part moved. */
export function shifted(p: GroupPostings, offset: number): SlotPostings {
  if (offset === 0) return p;
  let parts = shiftedParts.get(offset);
  if (parts === undefined) shiftedParts.set(offset, (parts = BASE_PARTS.map((part) => part - offset)));
  let byOffset = views.get(p);
  if (byOffset === undefined) views.set(p, (byOffset = new Map<number, SlotPostings>()));
  let view = byOffset.get(offset);
  if (view === undefined) byOffset.set(offset, (view = { rids: p.rids, codes: p.codes, parts, covers: p.covers }));
  return view;
}

/**
 * The most foods a slot can match: over its alternatives, the foods of an alternative's
 * narrowest term (a food must have every term: `lard` or `pork fat` is at most lard's foods
 * and pork's, however many `fat` has), a term's being its choices' groups' sizes summed.
 */
export function slotBound(slot: Slot, groupFoods: ArrayLike<number>): number {
  let bound = 0;
  for (const a of slot.alternatives) {
    let narrowest = Infinity;
    for (const t of a.terms) {
      let foods = 0;
      for (const c of t.choices) foods += groupFoods[c.group]!;
      narrowest = Math.min(narrowest, foods);
    }
    if (narrowest < Infinity) bound += narrowest;
  }
  return bound;
}

/** Foods in rid order with how each matches: in the name (1/0), value and coverage. */
interface Matches {
  rids: Uint32Array;
  named: Uint8Array;
  values: Float64Array;
  covers: Float64Array;
  length: number;
}

function matches(capacity: number): Matches {
  return {
    rids: new Uint32Array(capacity), named: new Uint8Array(capacity), values: new Float64Array(capacity), covers: new Float64Array(capacity), length: 0,
  };
}

/**
 * a is better than b: in the name first, then the higher value, then the larger coverage (a
 * total order, so a union keeps the same entry whatever order its lists come in).
 */
export function better(namedA: number, valueA: number, coverA: number, namedB: number, valueB: number, coverB: number): boolean {
  if (namedA !== namedB) return namedA > namedB;
  if (valueA !== valueB) return valueA > valueB;
  return coverA > coverB;
}

/**
 * One choice's foods (those with a matching form); with `within` (rids ascending), only those
 * of them, found by galloping from the shorter list into the longer.
 */
function choiceMatches(stored: GroupPostings, choice: Choice, within?: Uint32Array): Matches {
  const p = choiceList(stored, choice);
  const { rids, codes, forms, covers } = p;
  let indexes: Uint32Array | undefined;
  if (within !== undefined) {
    indexes = new Uint32Array(Math.min(within.length, rids.length));
    let k = 0;
    if (within.length < rids.length) {
      let at = 0;
      for (let c = 0; c < within.length && at < rids.length; c++) {
        at = seek(rids, at, within[c]!);
        if (at < rids.length && rids[at] === within[c]) indexes[k++] = at;
      }
    } else {
      let at = 0;
      for (let i = 0; i < rids.length && at < within.length; i++) {
        at = seek(within, at, rids[i]!);
        if (at < within.length && within[at] === rids[i]) indexes[k++] = i;
      }
    }
    indexes = indexes.subarray(0, k);
  }
  const count = indexes === undefined ? rids.length : indexes.length;
  const out = matches(count);
  let n = 0;
  for (let j = 0; j < count; j++) {
    const i = indexes === undefined ? j : indexes[j]!;
    if (forms !== undefined && choice.forms !== ALL_FORMS && (forms[i]! & choice.forms) === 0) continue;
    const code = codes[i]!;
    out.rids[n] = rids[i]!;
    out.named[n] = code & 1;
    out.values[n] = -BASE_PARTS[code >>> 1]! + choice.offset;
    out.covers[n] = covers[code >>> 1]!;
    n++;
  }
  out.length = n;
  return out;
}

/** The union of lists, each food once with its best entry (a heap merge over the lists' heads). */
function union(lists: readonly Matches[]): Matches {
  const live = lists.filter((m) => m.length > 0);
  if (live.length === 0) return matches(0);
  if (live.length === 1) return live[0]!;
  const size = live.reduce((n, m) => n + m.length, 0);
  if (live.length > BLOCK_UNION_LISTS && size > blockUnionSize()) return blockUnion(live, size);
  const out = matches(size);
  const at = new Uint32Array(live.length);
  // A heap of list numbers by their current rid.
  const heap = live.map((_, i) => i);
  const rid = (i: number): number => live[i]!.rids[at[i]!]!;
  const down = (from: number): void => {
    let i = from;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let least = i;
      if (l < heap.length && rid(heap[l]!) < rid(heap[least]!)) least = l;
      if (r < heap.length && rid(heap[r]!) < rid(heap[least]!)) least = r;
      if (least === i) return;
      [heap[i], heap[least]] = [heap[least]!, heap[i]!];
      i = least;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  let n = 0;
  while (heap.length > 0) {
    const list = heap[0]!;
    const m = live[list]!;
    const k = at[list]!;
    const r = m.rids[k]!;
    if (n > 0 && out.rids[n - 1] === r) {
      if (better(m.named[k]!, m.values[k]!, m.covers[k]!, out.named[n - 1]!, out.values[n - 1]!, out.covers[n - 1]!)) {
        out.named[n - 1] = m.named[k]!;
        out.values[n - 1] = m.values[k]!;
        out.covers[n - 1] = m.covers[k]!;
      }
    } else {
      out.rids[n] = r;
      out.named[n] = m.named[k]!;
      out.values[n] = m.values[k]!;
      out.covers[n] = m.covers[k]!;
      n++;
    }
    if (++at[list]! === m.length) {
      heap[0] = heap[heap.length - 1]!;
      heap.pop();
    }
    if (heap.length > 0) down(0);
  }
  out.length = n;
  return out;
}

/**
 * Unions of more lists than this, and of more entries than blockUnionSize() (default 50,000;
 * FOODLOOKUP_BLOCK_UNION_MIN, which tests lower), are merged a block of rids at a time.
 */
const BLOCK_UNION_LISTS = 8;
function blockUnionSize(): number {
  return envInteger('FOODLOOKUP_BLOCK_UNION_MIN', 0, 50_000);
}
const UNION_BLOCK = 1 << 15;
/**
 * An entry (in the name, value, coverage) packed in one double so that a larger number is
 * `better`: coverage in the low 32 bits, the value above (within ±VALUE_SPAN), the name bit on
 * top; always positive, so 0 can mean "none".
 */
export const COVER_SPAN = 2 ** 32;
export const VALUE_SPAN = 2 ** 11;
export const NAMED = 2 ** 44;

export function packEntry(named: number, value: number, cover: number): number {
  return named * NAMED + (value + VALUE_SPAN) * COVER_SPAN + cover;
}

/** `packEntry` read back. */
export function unpackEntry(key: number): { named: number; value: number; cover: number } {
  const named = key >= NAMED ? 1 : 0;
  const rest = key - named * NAMED;
  return { named, value: Math.floor(rest / COVER_SPAN) - VALUE_SPAN, cover: rest % COVER_SPAN };
}

/** Per (parts table, covers table, offset): each code's entry packed (`packEntry`), so a food's best entry among lists is a max. */
const packedTables = new WeakMap<Float64Array, WeakMap<Uint32Array, Map<number, Float64Array>>>();

/** The packed entry of each code of `list`, its values moved by `offset`. */
export function packedCodes(list: SlotPostings, offset: number): Float64Array {
  let byCovers = packedTables.get(list.parts);
  if (byCovers === undefined) packedTables.set(list.parts, (byCovers = new WeakMap<Uint32Array, Map<number, Float64Array>>()));
  let byOffset = byCovers.get(list.covers);
  if (byOffset === undefined) byCovers.set(list.covers, (byOffset = new Map<number, Float64Array>()));
  let table = byOffset.get(offset);
  if (table === undefined) {
    table = new Float64Array(list.parts.length * 2);
    for (let code = 0; code < table.length; code++) table[code] = packEntry(code & 1, -list.parts[code >>> 1]! + offset, list.covers[code >>> 1]!);
    byOffset.set(offset, table);
  }
  return table;
}

/** Reused by `choicesUnion` (a search runs to its end before the next). */
const unionBest = new Float64Array(1 << 15);
const unionTouched = new Uint32Array((1 << 15) >>> 5);
/**
 * The union's rids and codes as they are found, grown as needed and reused: only the list's
 * final arrays are new. Sized for the choices' postings together, these were two thirds of a
 * type-ahead search's new ArrayBuffers, and V8 counts such external memory towards its next
 * full collection.
 */
let unionRids = new Uint32Array(1 << 16);
let unionCodes = new Uint32Array(1 << 16);
/** Entries of that scratch kept between unions, 8 bytes each (2 MiB). */
const SCRATCH_KEPT = 1 << 18;
/** Each value's first kind in the list being made (-1: none yet); put back to -1 after each (`Kinds.done`). */
const firstOfValue = new Int32Array(2 * VALUE_SPAN).fill(-1);

/**
 * The kinds of a list being made: each distinct (value, coverage), found by value, then by
 * coverage among the few of that value (a Map keyed by such large numbers cost ~100 ns a food).
 * One list is made at a time: `done` puts the shared table back.
 */
class Kinds {
  readonly parts: number[] = [];
  readonly covers: number[] = [];
  private readonly nextOfValue: number[] = [];
  /** Kinds of values outside ±VALUE_SPAN (a synonym standing for many query words), by (value, coverage). */
  private outside: Map<number, number> | undefined;

  of(value: number, cover: number): number {
    const at = value + VALUE_SPAN;
    if (at < 0 || at >= firstOfValue.length) return this.outsideOf(value, cover);
    let kind = firstOfValue[at]!;
    while (kind >= 0 && this.covers[kind] !== cover) kind = this.nextOfValue[kind]!;
    if (kind < 0) {
      kind = this.parts.length;
      this.parts.push(-value);
      this.covers.push(cover);
      this.nextOfValue.push(firstOfValue[at]!);
      firstOfValue[at] = kind;
    }
    return kind;
  }

  done(): void {
    for (const part of this.parts) {
      const at = VALUE_SPAN - part;
      if (at >= 0 && at < firstOfValue.length) firstOfValue[at] = -1;
    }
  }

  private outsideOf(value: number, cover: number): number {
    this.outside ??= new Map<number, number>();
    const key = value * COVER_SPAN + cover;
    let kind = this.outside.get(key);
    if (kind === undefined) {
      kind = this.parts.length;
      this.parts.push(-value);
      this.covers.push(cover);
      this.nextOfValue.push(-1);
      this.outside.set(key, kind);
    }
    return kind;
  }
}

/**
 * The list of a slot that is one term of choices (a type-ahead prefix's completions, a typo's
 * corrections, a wide slot's rare choices), as `materialize` makes it, in one pass: the
 * choices' stored lists read a block of rids at a time, each food's best entry kept as one
 * packed number, then the block's foods in rid order given their kinds. No list per choice is
 * made and merged (for `co*`'s ~150 words that was most of a search's time).
 */
export function choicesUnion(choices: readonly Choice[], postings: (group: number) => GroupPostings | undefined): SlotPostings {
  const lists: GroupPostings[] = [];
  const tables: Float64Array[] = [];
  const masks: number[] = [];
  let size = 0;
  let limit = 0;
  for (const choice of choices) {
    const stored = postings(choice.group);
    if (stored === undefined || stored.rids.length === 0) continue;
    const p = choiceList(stored, choice);
    lists.push(p);
    tables.push(packedCodes(p, choice.offset));
    masks.push(p.forms === undefined ? ALL_FORMS : choice.forms);
    size += p.rids.length;
    limit = Math.max(limit, p.rids[p.rids.length - 1]! + 1);
  }
  if (unionRids.length < size) {
    unionRids = new Uint32Array(size);
    unionCodes = new Uint32Array(size);
  }
  const rids = unionRids;
  const codes = unionCodes;
  const kinds = new Kinds();
  const at = new Uint32Array(lists.length);
  const best = unionBest;
  const touched = unionTouched;
  let n = 0;
  for (let base = 0; base < limit; base += UNION_BLOCK) {
    const end = base + UNION_BLOCK;
    for (let l = 0; l < lists.length; l++) {
      const { rids: from, codes: fromCodes, forms } = lists[l]!;
      const table = tables[l]!;
      const mask = masks[l]!;
      let i = at[l]!;
      for (; i < from.length && from[i]! < end; i++) {
        if (mask !== ALL_FORMS && (forms![i]! & mask) === 0) continue;
        const key = table[fromCodes[i]!]!;
        const slot = from[i]! - base;
        const had = best[slot]!;
        if (had === 0) touched[slot >>> 5]! |= 1 << (slot & 31);
        if (key > had) best[slot] = key;
      }
      at[l] = i;
    }
    // The block's foods in rid order: its touched bits read a word at a time (sorting them cost more than the rest).
    for (let w = 0; w < touched.length; w++) {
      for (let x = touched[w]!; x !== 0; x &= x - 1) {
      const slot = (w << 5) | (31 - Math.clz32(x & -x));
      const key = best[slot]!;
      best[slot] = 0;
      const named = key >= NAMED ? 1 : 0;
      // The entry without its name bit: (value, coverage), a kind.
      const rest = key - named * NAMED;
      const kind = kinds.of(Math.floor(rest / COVER_SPAN) - VALUE_SPAN, rest % COVER_SPAN);
      rids[n] = base + slot;
      codes[n] = kind * 2 + named;
      n++;
      }
      touched[w] = 0;
    }
  }
  kinds.done();
  const list = slotList(rids.slice(0, n), codes.subarray(0, n), kinds.parts, kinds.covers);
  // A union of the commonest words would keep its scratch at their size: let it go.
  if (size > SCRATCH_KEPT) {
    unionRids = new Uint32Array(1 << 16);
    unionCodes = new Uint32Array(1 << 16);
  }
  return list;
}

/** A made list with the narrowest codes its kinds allow. */
function slotList(rids: Uint32Array, codes: Uint32Array, parts: readonly number[], covers: readonly number[]): SlotPostings {
  return { rids, codes: narrowCodes(codes, parts.length), parts: Float64Array.from(parts), covers: Uint32Array.from(covers) };
}

/**
 * `union` of many lists (a short type-ahead prefix completes to hundreds of words): each food's
 * best entry kept in a block of rids at a time, then the block's foods sorted. A heap merge over
 * hundreds of lists cost a comparison of heads per level for every entry.
 */
function blockUnion(lists: readonly Matches[], size: number): Matches {
  const out = matches(size);
  const best = new Float64Array(UNION_BLOCK);
  const touched = new Uint32Array(UNION_BLOCK);
  const at = new Uint32Array(lists.length);
  let limit = 0;
  for (const m of lists) limit = Math.max(limit, m.rids[m.length - 1]! + 1);
  let n = 0;
  for (let base = 0; base < limit; base += UNION_BLOCK) {
    const end = base + UNION_BLOCK;
    let count = 0;
    for (let l = 0; l < lists.length; l++) {
      const m = lists[l]!;
      let i = at[l]!;
      for (; i < m.length && m.rids[i]! < end; i++) {
        const key = packEntry(m.named[i]!, m.values[i]!, m.covers[i]!);
        const slot = m.rids[i]! - base;
        const had = best[slot]!;
        if (had === 0) touched[count++] = slot;
        if (key > had) best[slot] = key;
      }
      at[l] = i;
    }
    const slots = touched.subarray(0, count).sort();
    for (let k = 0; k < count; k++) {
      const slot = slots[k]!;
      const entry = unpackEntry(best[slot]!);
      best[slot] = 0;
      out.rids[n] = base + slot;
      out.named[n] = entry.named;
      out.values[n] = entry.value;
      out.covers[n] = entry.cover;
      n++;
    }
  }
  out.length = n;
  return out;
}

/** The foods every term has; values and coverage summed, in the name when every term is. */
function intersection(terms: readonly Matches[]): { m: Matches; sums: Float64Array } {
  const order = terms.map((_, i) => i).sort((a, b) => terms[a]!.length - terms[b]!.length);
  const driver = terms[order[0]!]!;
  const rest = order.slice(1);
  const out = matches(driver.length);
  const at = new Uint32Array(terms.length);
  let n = 0;
  outer: for (let d = 0; d < driver.length; d++) {
    const r = driver.rids[d]!;
    for (const t of rest) {
      const m = terms[t]!;
      let k = at[t]!;
      while (k < m.length && m.rids[k]! < r) k++;
      at[t] = k;
      if (k === m.length) break outer;
      if (m.rids[k] !== r) continue outer;
    }
    let named = 1;
    let value = 0;
    let cover = 0;
    for (let t = 0; t < terms.length; t++) {
      const m = terms[t]!;
      const k = t === order[0] ? d : at[t]!;
      named &= m.named[k]!;
      value += m.values[k]!;
      cover += m.covers[k]!;
    }
    out.rids[n] = r;
    out.named[n] = named;
    out.values[n] = value;
    out.covers[n] = cover;
    n++;
  }
  out.length = n;
  return { m: out, sums: out.values };
}

/** An alternative's foods: every term, each at its best choice. */
function alternativeMatches(alternative: Alternative, postings: (group: number) => GroupPostings | undefined, within?: Uint32Array): Matches {
  const terms: Matches[] = [];
  // The narrowest term first; the others only for its foods (`meat ball`: 521 foods have
  // `ball`, 79,616 `meat`).
  const size = (term: Term): number => term.choices.reduce((n, c) => n + (postings(c.group)?.rids.length ?? 0), 0);
  const order = alternative.terms.length === 1 ? alternative.terms : alternative.terms.slice().sort((a, b) => size(a) - size(b));
  let only = within;
  for (const term of order) {
    const lists: Matches[] = [];
    for (const choice of term.choices) {
      const p = postings(choice.group);
      if (p !== undefined) lists.push(choiceMatches(p, choice, only));
    }
    const m = union(lists);
    if (m.length === 0) return matches(0);
    terms.push(m);
    only = m.rids.subarray(0, m.length);
  }
  const { m } = terms.length === 1 ? { m: terms[0]! } : intersection(terms);
  // Mean over the terms, once per query word: whole numbers, so the same in every path.
  const k = alternative.terms.length;
  for (let i = 0; i < m.length; i++) {
    m.values[i] = Math.floor((m.values[i]! * alternative.words) / k) + alternative.offset;
  }
  return m;
}

/**
 * The slot's foods in rid order, as postings with kinds of their own: each distinct (value,
 * coverage) is a kind. What the reference path ranks, and what the fast paths read for a slot
 * that is not one stored list; `within` (rids ascending) keeps only those foods (a slot of many
 * foods beside a narrower one: `cheddar ch*`).
 */
export function materialize(slot: Slot, postings: (group: number) => GroupPostings | undefined, within?: Uint32Array): SlotPostings {
  // Alternatives of one term for one word (a word and its one-word synonyms) are one term of
  // all their choices, each with its alternative's offset: a food's best entry is the same.
  if (within === undefined && slot.alternatives.every((a) => a.terms.length === 1 && a.words === 1)) {
    return choicesUnion(slot.alternatives.flatMap((a) => a.terms[0]!.choices.map((c) => (a.offset === 0 ? c : { ...c, offset: c.offset + a.offset }))), postings);
  }
  const m = union(slot.alternatives.map((a) => alternativeMatches(a, postings, within)));
  const kinds = new Kinds();
  const codes = new Uint32Array(m.length);
  for (let i = 0; i < m.length; i++) codes[i] = kinds.of(m.values[i]!, m.covers[i]!) * 2 + m.named[i]!;
  kinds.done();
  return slotList(m.rids.slice(0, m.length), codes, kinds.parts, kinds.covers);
}

/** A plain slot's stored list as slot postings (the same object: its derived bitmaps are kept with it). */
export function groupAsSlot(p: GroupPostings): SlotPostings {
  return p;
}
