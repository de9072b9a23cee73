/**
 * A plain in-memory reference of the filter semantics of contract C3, for property tests
 * only: obviously correct, slow, and independent of the SQL the store runs.
 */
import type { RCatalog, RFood } from './random-catalog.js';

export const fold = (s: string): string => s.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();

export interface IdFilterSpec { include: string[]; exclude: string[] }
export interface ListSpec { values: string[]; inverted: boolean }
export interface FoodFilterSpec {
  region?: 'au' | 'us';
  brands?: IdFilterSpec;
  tags?: IdFilterSpec;
  categories?: ListSpec;
  classifications?: ListSpec;
}

export function leavesUnder(catalog: RCatalog, ids: readonly string[]): Set<string> {
  const out = new Set<string>();
  const visit = (id: string): void => {
    out.add(id);
    for (const child of catalog.categories.filter((c) => c.parent === id)) visit(child.id);
  };
  ids.forEach(visit);
  return out;
}

export function foodPasses(catalog: RCatalog, food: RFood, f: FoodFilterSpec): boolean {
  if (f.region && food.region !== f.region) return false;
  if (f.brands) {
    if (f.brands.include.length > 0 && !f.brands.include.includes(food.brand)) return false;
    if (f.brands.exclude.includes(food.brand)) return false;
  }
  if (f.tags) {
    if (!f.tags.include.every((t) => food.tags.includes(t))) return false;
    if (f.tags.exclude.some((t) => food.tags.includes(t))) return false;
  }
  if (f.categories) {
    const inAny = leavesUnder(catalog, f.categories.values).has(food.category);
    if (inAny === f.categories.inverted) return false;
  }
  if (f.classifications) {
    const inAny = f.classifications.values.some((v) => v.toLowerCase() === food.classification.toLowerCase());
    if (inAny === f.classifications.inverted) return false;
  }
  return true;
}

/** Name order of contract C3: folded name, then id; `desc` is the exact reverse. */
export function byName<T extends { name: string; id?: string; foodId?: string }>(a: T, b: T): number {
  const ka = fold(a.name);
  const kb = fold(b.name);
  if (ka !== kb) return ka < kb ? -1 : 1;
  const ia = a.id ?? a.foodId ?? '';
  const ib = b.id ?? b.foodId ?? '';
  return ia < ib ? -1 : ia > ib ? 1 : 0;
}
