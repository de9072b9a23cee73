import { REGIONS } from '../domain/regions.js';
import type { FoodFilters } from '../store/catalog-store.js';
import type { FoodFacts } from './search-index.js';
import type { FoodTest } from './word-search.js';

/** Rids of the records the filters name, from the catalogue version's dictionary. */
export interface RecordRids {
  brandRid(id: string): number | undefined;
  tagRid(id: string): number | undefined;
  /** Rids of these categories and of every category below them (the closure). */
  categoriesUnder(ids: readonly string[]): number[];
  /** Rids of the foods whose classification is one of these (compared case-insensitively: contract C3). */
  classificationFoods(values: readonly string[]): Iterable<number>;
  /** Rids of the foods carrying a barcode with one of these keys (domain/barcodes.ts), from the store's index. */
  upcFoods(keys: readonly string[]): Iterable<number>;
  /** One more than the largest rid of each kind: the size of a bitmap over them. */
  readonly limits: { readonly brand: number; readonly category: number; readonly tag: number };
}

function bitmap(size: number, rids: Iterable<number>): Uint8Array {
  const bits = new Uint8Array(size);
  for (const rid of rids) bits[rid] = 1;
  return bits;
}

function known(ids: readonly string[], rid: (id: string) => number | undefined): number[] {
  return ids.map(rid).filter((r) => r !== undefined);
}

/**
 * The query's filters as a test on a food's rid, with the contract's meaning (C3), as the
 * store's SQL filters have it: included brands, any of them; excluded brands, none; a category
 * list, the leaves below (or, inverted, everything else); included tags, all of them (an unknown
 * one: no food); excluded tags, none; classifications, the foods the store finds with them (or,
 * inverted, the others). Undefined when nothing filters.
 */
export function foodTest(filters: FoodFilters, facts: FoodFacts, rids: RecordRids): FoodTest {
  const tests: ((rid: number) => boolean)[] = [];
  if (filters.classifications) {
    const listed = bitmap(facts.place.length, rids.classificationFoods(filters.classifications.values));
    const want = filters.classifications.inverted ? 0 : 1;
    tests.push((rid) => listed[rid] === want);
  }
  if (filters.upcs) {
    const carrying = bitmap(facts.place.length, rids.upcFoods(filters.upcs));
    tests.push((rid) => carrying[rid] === 1);
  }
  if (filters.region) {
    const code = REGIONS.indexOf(filters.region) + 1;
    const region = facts.region;
    tests.push((rid) => region[rid] === code);
  }
  const brandOf = facts.brand;
  if (filters.brands && filters.brands.include.length > 0) {
    const allowed = bitmap(rids.limits.brand, known(filters.brands.include, (id) => rids.brandRid(id)));
    tests.push((rid) => allowed[brandOf[rid]!] === 1);
  }
  if (filters.brands && filters.brands.exclude.length > 0) {
    const banned = bitmap(rids.limits.brand, known(filters.brands.exclude, (id) => rids.brandRid(id)));
    tests.push((rid) => banned[brandOf[rid]!] !== 1);
  }
  if (filters.categories) {
    const under = bitmap(rids.limits.category, rids.categoriesUnder(filters.categories.values));
    const want = filters.categories.inverted ? 0 : 1;
    const categoryOf = facts.category;
    tests.push((rid) => under[categoryOf[rid]!] === want);
  }
  const { tagStart, tagRids } = facts;
  if (filters.tags && filters.tags.include.length > 0) {
    const wanted = known(filters.tags.include, (id) => rids.tagRid(id));
    if (wanted.length < filters.tags.include.length) return () => false;
    tests.push((rid) => {
      const end = tagStart[rid + 1]!;
      for (const tag of wanted) {
        let found = false;
        for (let i = tagStart[rid]!; i < end; i++) {
          if (tagRids[i] === tag) {
            found = true;
            break;
          }
        }
        if (!found) return false;
      }
      return true;
    });
  }
  if (filters.tags && filters.tags.exclude.length > 0) {
    const banned = bitmap(rids.limits.tag, known(filters.tags.exclude, (id) => rids.tagRid(id)));
    tests.push((rid) => {
      const end = tagStart[rid + 1]!;
      for (let i = tagStart[rid]!; i < end; i++) if (banned[tagRids[i]!] === 1) return false;
      return true;
    });
  }
  if (tests.length === 0) return undefined;
  if (tests.length === 1) return tests[0];
  return (rid) => {
    for (const test of tests) if (!test(rid)) return false;
    return true;
  };
}
