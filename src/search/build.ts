import { REGIONS } from '../domain/regions.js';
import { bytesOf, jsonBlob, narrowIds, wordsBlob, type Ids, type SearchBlobWriter } from './blobs.js';
import { COUNTED_SEGMENTS, PLACEMENT, foodWords, type FoodTexts } from './food-text.js';
import { encodeGroupPostings, formsArray } from './postings.js';
import { RANKING_VERSION, kindOf, packShape } from './ranking.js';
import { buildDeletionIndex } from './typos.js';
import { FormGroups } from './word-forms.js';
import { MARK, nameMarks } from './food-words.js';
import { writeNameKeys } from './name-keys.js';
import { formBit } from './plan.js';
import { SEARCH_DATA_FORMAT, TOP_DEPTH, topMinFoods, type SearchMeta } from './search-meta.js';
import { writeTopLists, type TopListInput, type TopListOptions } from './top-lists.js';

/**
 * The search data of a whole catalogue, built from plain rows a store reads inside its import
 * transaction (README.md: the store interface) and written as named blobs:
 * - the vocabulary: every distinct word of the matched fields, sorted, with its group of forms,
 *   whether it is in a name, the deletion index for typos (vocabulary.ts);
 * - postings of each group of forms: the foods having it, in rid order, each with its
 *   placement kind and, for a group of several forms, which forms the food has;
 * - facts of every food the searches need: its place in name order, name length, region,
 *   brand, category and tags (filters), and its shape for ranking;
 * - for every group and type-ahead prefix that at least `topMinFoods()` foods match, the first
 *   TOP_DEPTH foods in rank order and the counts (top-lists.ts).
 */

/** A food as the builder reads it: its rid, texts (folded; the brand's name comes from `brands`), region and records. */
export interface SearchFoodRow extends Omit<FoodTexts, 'brand'> {
  readonly rid: number;
  readonly region: string;
  /** The brand's rid. */
  readonly brand: number;
  readonly category: number;
  /** The servings (household measures) the food lists: commonly eaten foods list more. */
  readonly servings: number;
}

/** What a store hands the builder. */
export interface SearchSource {
  /** One more than the largest food rid. */
  readonly ridLimit: number;
  /** Every food, in any order (rid order reads a table fastest). */
  foods(): Iterable<SearchFoodRow>;
  /** Every food's rid in name order: folded name, then id (the order of `name_key, id`). */
  nameOrder(): Iterable<number>;
  /** Every brand's rid and folded name (a food's brand name is matched too), and whether it is a generic brand ('Average All Brands'). */
  brands(): Iterable<{ readonly rid: number; readonly name: string; readonly generic: boolean }>;
  /** Each tag's rid and its foods' rids, tags in the order foods list them (by tag id). */
  tagFoods(): Iterable<{ readonly tag: number; readonly foods: Iterable<number> }>;
}

/** Marks a rid without a food in `place`. */
export const NO_PLACE = 0xffffffff;

/**
 * A one-word head segment followed by this many different second segments is a class (`Fish`,
 * `Nuts`, `Cheese`, `Cereals`), not a food (`Apples, raw`: a few states and forms). 8 and 16
 * gave the same figures on the judged sets, 32 lost s@1 on the check set (`cashews`…).
 */
export const CLASS_KINDS = 16;

/** A growable typed array. */
class Growing<T extends Uint32Array | Uint8Array> {
  length = 0;
  constructor(public array: T, private readonly make: (n: number) => T) {}
  push(value: number): void {
    if (this.length === this.array.length) {
      const bigger = this.make(this.array.length * 2);
      bigger.set(this.array);
      this.array = bigger;
    }
    this.array[this.length++] = value;
  }
}

function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) n--;
  }
  return n;
}

/** What a store asks of the build. */
export interface BuildOptions {
  /** Groups and prefixes of at least this many foods get stored first pages (default `topMinFoods()`). */
  readonly topMin?: number;
  /**
   * Also store the lists of mid-sized type-ahead prefixes (top-lists.ts `prefixUnionKey`): for a
   * store that reads blobs as searches ask (SQLite). A store that holds every blob of a version
   * in memory (PostgreSQL, a build in memory) leaves them out; the engine then makes those lists.
   */
  readonly prefixUnions?: boolean;
  /**
   * Also store every food's folded name in name order (name-keys.ts): for a store whose name
   * index is a round trip away (PostgreSQL), so that a prefix search finds its run in memory.
   */
  readonly nameKeys?: boolean;
  /**
   * Keep every group's postings (TopListInput's rids, codes, forms: ~110 MiB at 1,000,000 foods)
   * in shared memory, so that another thread can write some of the top lists without a copy
   * (build-thread-worker.ts).
   */
  readonly sharedPostings?: boolean;
}

/** The search data but for the top lists and `meta` (`buildSearchParts`), and what those need. */
export interface SearchParts {
  readonly meta: SearchMeta;
  readonly topInput: TopListInput;
  readonly topOptions: TopListOptions;
}

/** Builds every blob of the catalogue's search data; returns the number of words. */
export function buildSearchData(source: SearchSource, out: SearchBlobWriter, options: BuildOptions = {}): { words: number; groups: number } {
  const parts = buildSearchParts(source, out, options);
  writeTopLists(parts.topInput, parts.topOptions, out);
  return finishSearchData(parts, out);
}

/** Writes `meta`, last: a store that finds it has every other blob of this version. */
export function finishSearchData(parts: SearchParts, out: SearchBlobWriter): { words: number; groups: number } {
  out.put('meta', jsonBlob(parts.meta));
  return { words: parts.meta.words, groups: parts.meta.groups };
}

/** Every blob but the top lists (top-lists.ts) and `meta`; returns what those are made of. */
export function buildSearchParts(source: SearchSource, out: SearchBlobWriter, options: BuildOptions = {}): SearchParts {
  const ridLimit = source.ridLimit;
  const brandName = new Map<number, string>();
  const genericBrands = new Set<number>();
  let brandLimit = 1;
  for (const b of source.brands()) {
    brandName.set(b.rid, b.name);
    if (b.generic) genericBrands.add(b.rid);
    brandLimit = Math.max(brandLimit, b.rid + 1);
  }
  const place = new Uint32Array(ridLimit).fill(NO_PLACE);
  // Each food's number in the order the source gave them, by rid.
  const entryOf = new Uint32Array(ridLimit).fill(NO_PLACE);
  const lengthOf = new Uint32Array(ridLimit);
  const region = new Uint8Array(ridLimit);
  const brandOf = new Uint32Array(ridLimit);
  const categoryOf = new Uint32Array(ridLimit);
  const servingsOf = new Uint8Array(ridLimit);
  const marksOf = new Uint8Array(ridLimit);
  const nameOf = options.nameKeys ? new Array<string>(ridLimit) : undefined;
  // Every food's words, in the source's order: word numbers (by first sight) and codes
  // (placement, counted segments); `start[k]` is food k's first entry, `ridAt[k]` its rid.
  const wordNumber = new Map<string, number>();
  const words: string[] = [];
  const wordInName: number[] = [];
  const postWord = new Growing(new Uint32Array(1 << 16), (n) => new Uint32Array(n));
  const postCode = new Growing(new Uint8Array(1 << 16), (n) => new Uint8Array(n));
  const start: number[] = [];
  const ridAt: number[] = [];
  // Each food's one-word head segment and the one word after it (word numbers, by rid; -1 for
  // none), and per head what follows it, until it is known to be a class (`true`).
  const headOf = new Int32Array(ridLimit).fill(-1);
  const kindWordOf = new Int32Array(ridLimit).fill(-1);
  const following = new Map<number, Set<string> | true>();
  let categoryLimit = 1;
  for (const food of source.foods()) {
    const rid = food.rid;
    // A typed array drops writes past its end: a wrong ridLimit would otherwise lose foods silently.
    if (!(rid >= 0 && rid < ridLimit)) throw new Error(`search data: food rid ${rid} is beyond the catalogue's ${ridLimit}`);
    entryOf[rid] = ridAt.length;
    lengthOf[rid] = codePoints(food.name);
    if (nameOf !== undefined) nameOf[rid] = food.name;
    region[rid] = REGIONS.indexOf(food.region as (typeof REGIONS)[number]) + 1;
    brandOf[rid] = food.brand;
    categoryOf[rid] = food.category;
    categoryLimit = Math.max(categoryLimit, food.category + 1);
    start.push(postWord.length);
    ridAt.push(rid);
    const analysed = foodWords({ ...food, brand: brandName.get(food.brand) ?? '' });
    servingsOf[rid] = Math.min(food.servings, 255);
    marksOf[rid] = nameMarks(analysed.words.filter((w) => w.placement < 4).map((w) => w.word)) | (genericBrands.has(food.brand) ? 0 : MARK.branded);
    for (const w of analysed.words) {
      let n = wordNumber.get(w.word);
      if (n === undefined) {
        n = words.length;
        wordNumber.set(w.word, n);
        words.push(w.word);
        wordInName.push(0);
      }
      if (w.placement < 4) wordInName[n] = 1;
      postWord.push(n);
      postCode.push(kindOf(w.placement, w.segments));
    }
    const head = analysed.head;
    if (head !== undefined && nameMarks([head.word]) === 0) {
      const h = wordNumber.get(head.word)!;
      headOf[rid] = h;
      if (head.kind !== undefined) kindWordOf[rid] = wordNumber.get(head.kind)!;
      const seen = following.get(h);
      if (seen === undefined) following.set(h, new Set([head.next]));
      else if (seen !== true && seen.add(head.next).size >= CLASS_KINDS) following.set(h, true);
    }
  }
  const foods = ridAt.length;
  start.push(postWord.length);
  // The vocabulary, sorted; groups of forms over it.
  const order = words.map((_, i) => i).sort((a, b) => (words[a]! < words[b]! ? -1 : words[a]! > words[b]! ? 1 : 0));
  const sorted = order.map((i) => words[i]!);
  const renumber = new Uint32Array(words.length);
  order.forEach((old, i) => (renumber[old] = i));
  const { groupOf, keys } = FormGroups.group(sorted);
  const groups = keys.length;
  const formOf = new Uint8Array(sorted.length);
  const formsInGroup = new Uint32Array(groups);
  for (let w = 0; w < sorted.length; w++) formOf[w] = Math.min(255, formsInGroup[groupOf[w]!]!++);

  // Each food's words merged into its groups: the best placement, the segments and forms
  // together; the food's shape from them. Merged entries overwrite the food's own range.
  const shape = new Uint32Array(ridLimit);
  const postForms = new Uint32Array(postWord.length);
  const merged = new Uint32Array(foods + 1);
  const groupFoods = new Uint32Array(groups);
  const groupNamed = new Uint32Array(groups);
  const pw = postWord.array;
  const pc = postCode.array;
  // A kind is a class's (`Fish, salmon`) when more names follow a class with it than open with
  // it, and when the class is the head it follows most: elsewhere it is a flavour or an
  // ingredient, a food of its own (`Pie, apple` beside `Apples, raw`; `Soup, crab` beside
  // `Crustaceans, crab, …`, however few kinds Crustaceans has).
  const kindGroup = (k: number): number => {
    const rid = ridAt[k]!;
    return kindWordOf[rid]! >= 0 ? groupOf[renumber[kindWordOf[rid]!]!]! : -1;
  };
  const isClass = (k: number): boolean => following.get(headOf[ridAt[k]!]!) === true;
  const asHead = new Uint32Array(groups);
  const asKind = new Uint32Array(groups);
  // Per kind, the names that follow each head with it, and the most any head has.
  const afterHead = new Map<number, Map<number, number>>();
  const afterMainHead = new Uint32Array(groups);
  for (let i = 0; i < postWord.length; i++) if ((pc[i]! & 7) === 0) asHead[groupOf[renumber[pw[i]!]!]!]!++;
  for (let k = 0; k < foods; k++) {
    const g = kindGroup(k);
    if (g < 0) continue;
    if (isClass(k)) asKind[g]!++;
    let byHead = afterHead.get(g);
    if (byHead === undefined) afterHead.set(g, (byHead = new Map<number, number>()));
    const head = headOf[ridAt[k]!]!;
    const n = (byHead.get(head) ?? 0) + 1;
    byHead.set(head, n);
    if (n > afterMainHead[g]!) afterMainHead[g] = n;
  }
  for (let k = 0; k < foods; k++) {
    const from = start[k]!;
    const to = start[k + 1]!;
    let n = from;
    for (let i = from; i < to; i++) {
      const w = renumber[pw[i]!]!;
      const g = groupOf[w]!;
      const code = pc[i]!;
      const bit = formBit(formOf[w]!);
      let j = from;
      while (j < n && pw[j] !== g) j++;
      if (j === n) {
        pw[n] = g;
        pc[n] = code;
        postForms[n] = bit;
        n++;
      } else {
        pc[j] = Math.min(pc[j]! & 7, code & 7) | ((pc[j]! | code) & 0x38);
        postForms[j] = (postForms[j]! | bit) >>> 0;
      }
    }
    merged[k] = n - from;
    const kind = kindGroup(k);
    const byKind = kind >= 0 && isClass(k) && asKind[kind]! > asHead[kind]! && afterHead.get(kind)!.get(headOf[ridAt[k]!]!) === afterMainHead[kind];
    // A class's food is named by its kind as by the class: the kind (the second segment's one
    // word) stands at the head and in the head segment, which the class word alone still
    // covers (`cheese` for `Cheese, cheddar`), and no longer in a second segment of its own.
    // Its shape then counts no second segment: what bound-first.ts placementMost reads as a
    // name that may have two words at its head.
    if (byKind) for (let j = from; j < n; j++) if ((pc[j]! >> 4) & 1) pc[j] = kindOf(PLACEMENT.head, ((pc[j]! >> 3) | 1) & ~2);
    const counts = new Array<number>(COUNTED_SEGMENTS).fill(0);
    let named = 0;
    for (let j = from; j < n; j++) {
      const code = pc[j]!;
      for (let s = 0; s < COUNTED_SEGMENTS; s++) if ((code >> (3 + s)) & 1) counts[s]!++;
      if ((code & 7) < 4) {
        named++;
        groupNamed[pw[j]!]!++;
      }
      groupFoods[pw[j]!]!++;
    }
    if (byKind) counts[0] = Math.max(1, counts[0]! - 1);
    shape[ridAt[k]!] = packShape(counts, named);
  }

  // Postings of each group in rid order: a counting sort.
  const groupStart = new Uint32Array(groups + 1);
  for (let g = 0; g < groups; g++) groupStart[g + 1] = groupStart[g]! + groupFoods[g]!;
  const fill = groupStart.slice(0, groups);
  const total = groupStart[groups]!;
  const memory = (bytes: number): ArrayBuffer | SharedArrayBuffer => (options.sharedPostings ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
  const rids = new Uint32Array(memory(total * 4));
  const codes = new Uint8Array(memory(total));
  const forms = new Uint32Array(memory(total * 4));
  for (let rid = 0; rid < ridLimit; rid++) {
    const k = entryOf[rid]!;
    if (k === NO_PLACE) continue;
    const from = start[k]!;
    for (let j = from; j < from + merged[k]!; j++) {
      const at = fill[pw[j]!]!++;
      rids[at] = rid;
      codes[at] = pc[j]! * 2 + ((pc[j]! & 7) < 4 ? 1 : 0);
      forms[at] = postForms[j]!;
    }
  }
  const listOf = (g: number): { rids: Uint32Array; codes: Uint8Array; forms: Ids | undefined } => {
    const from = groupStart[g]!;
    const to = groupStart[g + 1]!;
    let groupForms: Ids | undefined;
    if (formsInGroup[g]! > 1) {
      groupForms = formsArray(to - from, formsInGroup[g]!);
      groupForms.set(forms.subarray(from, to));
    }
    return { rids: rids.subarray(from, to), codes: codes.subarray(from, to), forms: groupForms };
  };
  for (let g = 0; g < groups; g++) {
    const list = listOf(g);
    out.put(`postings/${g}`, encodeGroupPostings(list.rids, list.codes, list.forms));
  }

  // The name order last of the source's rows: a store that builds its name index after the
  // records (SQLite after a bulk import) hands it over while the words are merged (build-thread.ts).
  const nameLength = new Uint32Array(foods);
  let longest = 0;
  let places = 0;
  const namesInOrder: string[] = [];
  for (const rid of source.nameOrder()) {
    nameLength[places] = lengthOf[rid]!;
    if (lengthOf[rid]! > longest) longest = lengthOf[rid]!;
    place[rid] = places++;
    if (nameOf !== undefined) namesInOrder.push(nameOf[rid]!);
  }
  if (places !== foods) throw new Error(`the source listed ${foods} foods and ${places} in name order`);
  if (nameOf !== undefined) writeNameKeys(namesInOrder, out);

  // Foods: name order and the records filters test.
  const nameLengths = narrowIds(foods, longest);
  nameLengths.set(nameLength);
  const narrowed = (values: Uint32Array, limit: number): Ids => {
    const ids = narrowIds(values.length, limit);
    ids.set(values);
    return ids;
  };
  const tagCounts = new Uint32Array(ridLimit + 1);
  const tagLists: { tag: number; foods: number[] }[] = [];
  let tagLimit = 1;
  for (const { tag, foods: tagged } of source.tagFoods()) {
    const list = [...tagged];
    tagLists.push({ tag, foods: list });
    tagLimit = Math.max(tagLimit, tag + 1);
    for (const rid of list) tagCounts[rid + 1]!++;
  }
  for (let rid = 1; rid <= ridLimit; rid++) tagCounts[rid]! += tagCounts[rid - 1]!;
  const tagFill = tagCounts.slice(0, ridLimit);
  const tagRids = narrowIds(tagCounts[ridLimit]!, tagLimit);
  for (const { tag, foods: tagged } of tagLists) for (const rid of tagged) tagRids[tagFill[rid]!++] = tag;

  const { hashes, words: typoWords } = buildDeletionIndex(sorted);
  const meta: SearchMeta = {
    format: SEARCH_DATA_FORMAT, ranking: RANKING_VERSION, foods, ridLimit, words: sorted.length, groups,
    brandLimit, categoryLimit, tagLimit, topDepth: TOP_DEPTH,
  };
  const put = (name: string, array: ArrayBufferView): void => out.put(name, bytesOf(array));
  put('foods/place', place);
  put('foods/name-length', nameLengths);
  put('foods/region', region);
  put('foods/brand', narrowed(brandOf, brandLimit));
  put('foods/category', narrowed(categoryOf, categoryLimit));
  put('foods/tag-start', tagCounts);
  put('foods/tag-rids', tagRids);
  put('foods/shape', shape);
  put('foods/servings', servingsOf);
  put('foods/marks', marksOf);
  out.put('vocabulary/words', wordsBlob(sorted));
  put('vocabulary/groups', groupOf);
  put('vocabulary/forms', formOf);
  put('vocabulary/in-name', Uint8Array.from(order, (old) => wordInName[old]!));
  const keyList = keys.flatMap((list, g) => list.map((key): [string, number] => [key, g])).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  out.put('vocabulary/keys', wordsBlob(keyList.map(([k]) => k)));
  put('vocabulary/key-groups', Uint32Array.from(keyList, ([, g]) => g));
  put('vocabulary/group-foods', groupFoods);
  put('vocabulary/group-named', groupNamed);
  put('vocabulary/typo-hashes', hashes);
  put('vocabulary/typo-words', typoWords);
  const topInput = { meta, place, shape, servings: servingsOf, marks: marksOf, sorted, groupOf, formOf, groupFoods, groupStart, rids, codes, forms };
  return { meta, topInput, topOptions: { topMin: options.topMin ?? topMinFoods(), prefixUnions: options.prefixUnions ?? false } };
}
