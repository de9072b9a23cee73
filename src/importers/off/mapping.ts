/**
 * Open Food Facts product → catalogue records, pure rules (docs/importers/off.md). A product is
 * read from either source shape (CSV row or JSONL object) into `OffProduct` first.
 */
import type { Nutrients } from '../../domain/nutrients.js';
import { KJ_PER_KCAL } from '../../domain/nutrients.js';
import type { Region } from '../../domain/regions.js';
import { ownValue } from '../../domain/own.js';

export interface OffProduct {
  readonly code: string;
  readonly name: string;
  readonly genericName: string;
  readonly brands: string;
  readonly categories: readonly string[];
  readonly labels: readonly string[];
  readonly countries: readonly string[];
  readonly servingSize: string;
  readonly servingQuantity: number | undefined;
  /** `<nutrient>_100g` values as OFF stores them (g per 100 g, energy in kJ). */
  readonly per100g: Readonly<Record<string, number>>;
}

export const COUNTRY_REGIONS: Readonly<Record<string, Region>> = { 'en:australia': 'au', 'en:united-states': 'us' };

/** Regions a product is sold in, among ours; one food per region. */
export function regionsOf(countries: readonly string[]): Region[] {
  return [...new Set(countries.map((c) => ownValue(COUNTRY_REGIONS, c.trim().toLowerCase())).filter((r) => r !== undefined))];
}

/** `en:sweet-spreads` → `Sweet spreads`; the language prefix is dropped. */
export function tagName(tag: string): string {
  const bare = tag.replace(/^[a-z]{2,3}:/, '').replace(/-/g, ' ').trim();
  return bare.charAt(0).toUpperCase() + bare.slice(1);
}

/** Taxonomy tags worth a node: not OFF's placeholders. */
export function usefulTags(tags: readonly string[]): string[] {
  return tags.map((t) => t.trim()).filter((t) => t !== '' && !/^[a-z]{2,3}:(null|unknown|undefined)$/.test(t));
}

/** How many levels of a product's category path become tree levels (OFF paths run deep). */
export const MAX_CATEGORY_DEPTH = 4;

/** Per-100 g OFF value (grams, kJ) → our key and unit. */
const CONVERSIONS: readonly (readonly [off: string, key: keyof Nutrients, factor: number])[] = [
  ['fat', 'fat', 1], ['saturated-fat', 'satFat', 1], ['trans-fat', 'transFat', 1], ['cholesterol', 'cholesterol', 1000],
  ['sodium', 'sodium', 1000], ['carbohydrates', 'totalCarbs', 1], ['fiber', 'fiber', 1], ['sugars', 'sugar', 1],
  ['proteins', 'protein', 1], ['vitamin-c', 'vitaminC', 1000], ['calcium', 'calcium', 1000], ['iron', 'iron', 1000],
  ['polyunsaturated-fat', 'polyUnsatFat', 1], ['monounsaturated-fat', 'monoUnsatFat', 1], ['omega-3-fat', 'omega3Fat', 1000],
  ['polyols', 'sugarAlcohol', 1], ['potassium', 'potassium', 1000], ['caffeine', 'caffeine', 1000],
];

const round = (value: number): number => Number(value.toFixed(6));

/**
 * Our 22 keys from OFF's `*_100g` values, as labelled in the region the food is for. Energy: `energy-kj_100g`, else `energy_100g` (kJ in
 * OFF), else `energy-kcal_100g` × 4.184. Left out on purpose: vitamin A (OFF stores retinol
 * equivalents in g, which have no exact IU value) and alcohol (OFF's alcohol_100g is % vol,
 * not g).
 */
export function nutrientsOf(per100g: Readonly<Record<string, number>>, region: Region): Nutrients {
  const out: Nutrients = {};
  const kj = per100g['energy-kj'] ?? per100g['energy'];
  const kcal = per100g['energy-kcal'];
  if (kj !== undefined) out.energy = round(kj);
  else if (kcal !== undefined) out.energy = round(kcal * KJ_PER_KCAL);
  for (const [off, key, factor] of CONVERSIONS) {
    const value = per100g[off];
    if (value !== undefined) out[key] = round(value * factor);
  }
  // Australian labels print available carbohydrate, which already leaves fibre out (as FSANZ's
  // tables do); US labels' total includes it.
  if (region === 'au' && out.totalCarbs !== undefined) out.netCarbs = out.totalCarbs;
  else if (out.totalCarbs !== undefined && out.fiber !== undefined) out.netCarbs = round(Math.max(0, out.totalCarbs - out.fiber));
  return out;
}

/** The label serving: name as printed, scale from its grams (or millilitres). */
export function labelServing(size: string, quantity: number | undefined): { name: string; scale: number; type: 'mass' | 'volume' } | undefined {
  if (size.trim() === '' || quantity === undefined || !(quantity > 0)) return undefined;
  return { name: size.trim(), scale: round(quantity / 100), type: /\bml\b|milliliter|fl\.? ?oz/i.test(size) ? 'volume' : 'mass' };
}
