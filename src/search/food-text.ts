
/**
 * How the search reads a food: its words and where each stands. Catalogues write names as
 * `Head, modifier, modifier` (USDA SR and FoodData Central, AUSNUT, most branded data:
 * `Apples, raw, with skin`, `Cheese, cheddar`), so a name is read as comma-separated segments
 * (`;` too; commas inside parentheses do not cut), and a word's placement says whether it is
 * the head, in the head segment, in a later segment or in another field. Ranking weighs the
 * placements (ranking.ts); matching only needs to know a word is there.
 */

/** Where a word stands in a food, best first; a word found in several places keeps the best. */
export const PLACEMENT = {
  /** The name's first word. */
  head: 0,
  /** Another word of the name's first segment. */
  headSegment: 1,
  /** The name's second segment. */
  secondSegment: 2,
  /** A later segment of the name. */
  laterSegment: 3,
  classification: 4,
  otherNames: 5,
  brand: 6,
  description: 7,
} as const;
export type Placement = (typeof PLACEMENT)[keyof typeof PLACEMENT];
export const PLACEMENTS = 8;

/** Placements below this are in the name. */
export const FIRST_OUTSIDE_NAME = PLACEMENT.classification;

/** Name segments whose coverage by the query counts (ranking.ts): the first three. */
export const COUNTED_SEGMENTS = 3;

/** The texts of a food the search matches, folded (domain/text.ts `fold`). */
export interface FoodTexts {
  readonly name: string;
  readonly brand: string;
  readonly classification: string;
  readonly otherNames: string;
  readonly description: string;
}

const WORD = /[\p{L}\p{N}]+/gu;

/**
 * The words of a folded text (as domain/text.ts splits, without folding again). ASCII text is
 * split by its character codes: the Unicode classes' regular expression was a third of the
 * time an import spends on foods' words. Other text is split by that expression.
 */
export function foldedWords(text: string): string[] {
  const words: string[] = [];
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return text.match(WORD) ?? [];
    // 0-9, A-Z, a-z: the ASCII letters and digits of \p{L} and \p{N}.
    if ((c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      words.push(text.slice(start, i));
      start = -1;
    }
  }
  if (start >= 0) words.push(text.slice(start));
  return words;
}

/** A name's segments: cut at `,` and `;` outside parentheses. */
export function nameSegments(name: string): string[] {
  const segments: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 40 || c === 91) depth++;
    else if ((c === 41 || c === 93) && depth > 0) depth--;
    else if ((c === 44 || c === 59) && depth === 0) {
      segments.push(name.slice(start, i));
      start = i + 1;
    }
  }
  segments.push(name.slice(start));
  return segments;
}

/**
 * Whether a word of a later segment names the maker rather than the product (`KELLOGG'S FROOT
 * LOOPS`, brand Kellogg: `kellogg`, and the `s` its apostrophe leaves), so that a query naming
 * the product alone covers that segment. Only from the third segment on: the first two
 * segments' word counts also bound what their placements can score (bound-first.ts
 * placementMost), which a word left out of them would make too low.
 */
function namesNoProduct(word: string, brandWords: readonly string[]): boolean {
  return word.length === 1 || brandWords.includes(word);
}

/**
 * A name's one-word head segment (`Fish` in `Fish, salmon, raw`) and its second segment, as
 * the import tells classes from foods (build.ts); `kind` is the second segment's one other word.
 */
export interface FoodHead {
  readonly word: string;
  readonly next: string;
  readonly kind?: string;
}

/** One word of a food, with its best placement and the counted name segments it is in (bit s: segment s). */
export interface WordPlace {
  readonly word: string;
  placement: Placement;
  segments: number;
}

/** A food's words looked up by a scan up to this many (foodWords). */
const SCANNED_WORDS = 32;

/**
 * The food's distinct words with their placements and the counted name segments each is in, in
 * order of first appearance (the importer makes each food's shape from these: build.ts).
 */
export function foodWords(food: FoodTexts): { words: WordPlace[]; head?: FoodHead } {
  const words: WordPlace[] = [];
  // Found by a scan while a food has few words (most have under 20), by a map beyond: a map
  // made for every food was a fifth of the time an import spends on foods' words.
  let byWord: Map<string, WordPlace> | undefined;
  const find = (word: string): WordPlace | undefined => {
    if (byWord !== undefined) return byWord.get(word);
    for (let i = 0; i < words.length; i++) if (words[i]!.word === word) return words[i];
    return undefined;
  };
  const add = (word: string, placement: Placement, segment: number): void => {
    let place = find(word);
    if (place === undefined) {
      place = { word, placement, segments: 0 };
      words.push(place);
      if (byWord !== undefined) byWord.set(word, place);
      else if (words.length === SCANNED_WORDS) byWord = new Map(words.map((p) => [p.word, p]));
    } else if (placement < place.placement) {
      place.placement = placement;
    }
    if (segment >= 0 && segment < COUNTED_SEGMENTS) place.segments |= 1 << segment;
  };
  // Empty segments (`a,,b`) are dropped: the next one takes their place.
  const segments = nameSegments(food.name).map(foldedWords).filter((inSegment) => inSegment.length > 0);
  // A name that opens with its maker (`BURGER KING, CHICKEN TENDERS`, brand Burger King
  // Corporation) has no food at its head: that segment's words stand in the name as a later
  // segment's do, and count for no segment. The next segments keep their places: promoted
  // to the head, a maker's dish (`McDONALD'S, Bacon, Egg & Cheese McGRIDDLES`) came before the
  // plain food (`bacon`, on the judged set).
  const brandWords = foldedWords(food.brand);
  const maker = segments.length > 1 && segments[0]!.every((word) => brandWords.includes(word));
  segments.forEach((inSegment, index) => {
    if (index === 0 && maker) {
      for (const word of inSegment) add(word, PLACEMENT.laterSegment, -1);
      return;
    }
    inSegment.forEach((word, i) => {
      const placement = index === 0 ? (i === 0 ? PLACEMENT.head : PLACEMENT.headSegment) : index === 1 ? PLACEMENT.secondSegment : PLACEMENT.laterSegment;
      add(word, placement, index >= 2 && namesNoProduct(word, brandWords) ? -1 : index);
    });
  });
  // A one-word head segment followed by another (`Fish, salmon, …`): the import counts what
  // follows each such head to tell a class (`Fish`, `Nuts`, `Cheese`) from a food (`Apples, raw`).
  let head: FoodHead | undefined;
  if (!maker && segments.length > 1 && segments[0]!.length === 1) {
    const word = segments[0]![0]!;
    const kinds = new Set(segments[1]!.filter((w) => w !== word));
    head = kinds.size === 1 ? { word, next: segments[1]!.join(' '), kind: [...kinds][0]! } : { word, next: segments[1]!.join(' ') };
  }
  for (const word of foldedWords(food.classification)) add(word, PLACEMENT.classification, -1);
  for (const word of foldedWords(food.otherNames)) add(word, PLACEMENT.otherNames, -1);
  for (const word of brandWords) add(word, PLACEMENT.brand, -1);
  for (const word of foldedWords(food.description)) add(word, PLACEMENT.description, -1);
  return head === undefined ? { words } : { words, head };
}
