import { REGIONS } from '../domain/regions.js';
import { foodWords, type FoodTexts } from './food-text.js';
import { MARK, nameMarks } from './food-words.js';
import { kindOf } from './ranking.js';

/** A food as the builder reads it: its rid, texts (folded; the brand's name comes from the brands), region and records. */
export interface SearchFoodRow extends Omit<FoodTexts, 'brand'> {
  readonly rid: number;
  readonly region: string;
  /** The brand's rid. */
  readonly brand: number;
  readonly category: number;
  /** The servings (household measures) the food lists: commonly eaten foods list more. */
  readonly servings: number;
}

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

const growing32 = (): Growing<Uint32Array> => new Growing(new Uint32Array(1 << 12), (n) => new Uint32Array(n));
const growing8 = (): Growing<Uint8Array> => new Growing(new Uint8Array(1 << 12), (n) => new Uint8Array(n));

function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) n--;
  }
  return n;
}

/**
 * The build's first pass (build.ts), food by food: each food's distinct words, numbered as first
 * seen, with their placement codes, and the facts searches test. What the build makes of them
 * does not depend on the foods' order (it numbers the words again in sorted order and lays the
 * postings out by rid).
 */
export class FoodEntries {
  /** Entry k's words are postWord/postCode from start[k] to start[k + 1] (the next entry's start, or the end). */
  readonly start = growing32();
  readonly postWord = growing32();
  readonly postCode = growing8();
  readonly rid = growing32();
  readonly nameLength = growing32();
  readonly region = growing8();
  readonly brand = growing32();
  readonly category = growing32();
  readonly servings = growing8();
  readonly marks = growing8();
  /** Each entry's folded name, when the build stores the names (name-keys.ts). */
  readonly names: string[] | undefined;
  /** The words, numbered as first seen, and whether each stands in some food's name. */
  readonly words: string[] = [];
  readonly wordInName = growing8();
  private readonly wordNumber = new Map<string, number>();
  private seen = new Uint8Array(1 << 12);

  constructor(keepNames: boolean) {
    this.names = keepNames ? [] : undefined;
  }

  get count(): number {
    return this.rid.length;
  }

  has(rid: number): boolean {
    return rid < this.seen.length && this.seen[rid] === 1;
  }

  /** One food, with its brand's folded name and whether that brand is a generic one. */
  add(food: SearchFoodRow, brandName: string, genericBrand: boolean): void {
    if (this.has(food.rid)) throw new Error(`search data: food rid ${food.rid} entered twice`);
    this.mark(food.rid);
    this.start.push(this.postWord.length);
    this.rid.push(food.rid);
    this.nameLength.push(codePoints(food.name));
    this.names?.push(food.name);
    this.region.push(REGIONS.indexOf(food.region as (typeof REGIONS)[number]) + 1);
    this.brand.push(food.brand);
    this.category.push(food.category);
    this.servings.push(Math.min(food.servings, 255));
    const analysed = foodWords({ ...food, brand: brandName });
    const named: string[] = [];
    for (const w of analysed.words) {
      let n = this.wordNumber.get(w.word);
      if (n === undefined) {
        n = this.words.length;
        this.wordNumber.set(w.word, n);
        this.words.push(w.word);
        this.wordInName.push(0);
      }
      if (w.placement < 4) {
        this.wordInName.array[n] = 1;
        named.push(w.word);
      }
      this.postWord.push(n);
      this.postCode.push(kindOf(w.placement, w.segments));
    }
    this.marks.push(nameMarks(named) | (genericBrand ? 0 : MARK.branded));
  }

  private mark(rid: number): void {
    if (rid >= this.seen.length) {
      const bigger = new Uint8Array(Math.max(rid + 1, this.seen.length * 2));
      bigger.set(this.seen);
      this.seen = bigger;
    }
    this.seen[rid] = 1;
  }
}
